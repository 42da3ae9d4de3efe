/**
 * A publisher in its own process: stories created, submitted, approved and published through
 * the workspace internal API (WORKSPACE_API) for PUBLISH_ORG, at PUBLISH_RATE stories a second
 * over PUBLISH_LOOPS loops. On SIGTERM it prints how many it published and the rate reached.
 */
import { publishStory } from "./workspace.ts";

const api = process.env.WORKSPACE_API ?? "";
const org = process.env.PUBLISH_ORG ?? "";
const rate = Number(process.env.PUBLISH_RATE ?? 13);
const loops = Number(process.env.PUBLISH_LOOPS ?? 3);
const started = performance.now();
let published = 0;
let failed = 0;
let stopping = false;

async function loop(index: number): Promise<void> {
  const every = (1_000 * loops) / rate;
  let next = performance.now();
  for (let n = 0; !stopping; n++) {
    try {
      await publishStory(api, org, `pub-${index}-${n}-${Date.now().toString(36)}`);
      published++;
    } catch {
      failed++;
    }
    // Paced, never catching up: after a pause (the bench stops this process between rounds)
    // the missed stories are not sent in a burst, which would publish faster than asked.
    next = Math.max(next + every, performance.now());
    const wait = next - performance.now();
    if (wait > 0) await Bun.sleep(wait);
  }
}

process.on("SIGTERM", () => {
  stopping = true;
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ published, failed, seconds, rate: published / seconds }));
  process.exit(0);
});
await Promise.all(Array.from({ length: loops }, (_, i) => loop(i)));
