/**
 * The local SES v2 emulator (`aws-ses-v2-local`) on 127.0.0.1: the email of `npm start` and of
 * `npm run start:cluster -- --demo`. Its root page lists the mail it received; `/store` is JSON.
 */
import { fileURLToPath } from "node:url";
import { checkPortFree, StartupError } from "@newsroom/shared/startup";

export interface LocalSes {
  endpoint: string;
  close(): void;
}

/** Where the emulator on this port answers (known before it listens). */
export function localSesEndpoint(port: number): string {
  return `http://127.0.0.1:${port}`;
}

/**
 * Starts the emulator on SES_LOCAL_PORT in a process of its own (its modules weigh about 50 MiB,
 * none of the service's): a taken port throws at once, naming the variable, before anything
 * else starts; the emulator loads (about half a second) while the database opens. It exits with
 * this process, even one that is killed.
 */
export function startLocalSes(port: number): Promise<LocalSes> {
  // The emulator does not report a port in use: ask first.
  checkPortFree("SES_LOCAL_PORT", port, "127.0.0.1");
  const child = Bun.spawn([process.execPath, EMULATOR, String(port)], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  return (async () => {
    const said = await Promise.race([
      firstLine(child.stdout),
      Bun.sleep(START_TIMEOUT_MS).then(() => `no answer in ${START_TIMEOUT_MS / 1000} s`),
    ]);
    if (said !== "listening") {
      child.kill();
      const why = said || `it exited with ${await child.exited}`;
      throw new StartupError("SES_LOCAL_PORT", `has no SES emulator: ${why}`);
    }
    return { endpoint: localSesEndpoint(port), close: () => child.kill() };
  })();
}

const START_TIMEOUT_MS = 20_000;
const EMULATOR = fileURLToPath(new URL("./ses-emulator.ts", import.meta.url));

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  // Whatever it says later is read and dropped, so a full pipe never stops it.
  void (async () => {
    while (!(await reader.read()).done) {}
  })().catch(() => undefined);
  return text.split("\n")[0]?.trim() ?? "";
}

/** What email needs when it goes to the emulator: the senders forms use. */
export const LOCAL_EMAIL = {
  FORMS_FROM_EMAIL: "newsroom@localhost.example",
  FORMS_TEAM_EMAIL: "team@localhost.example",
};
