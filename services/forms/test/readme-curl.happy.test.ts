import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { insertOrganization } from "@newsroom/shared/testing/builders";
import { formsWorld } from "./support/world.ts";

/**
 * The README's ready-to-paste curl examples, run as written by the shell against the service on
 * a local port (`npm start`'s development defaults: no human check, the demo's Northwind and its
 * local origin), twice: past the per-client limit of 5, which FORMS_CLIENT_LIMIT_PER_MINUTE lifts.
 */
const { forms, server } = formsWorld({
  serve: true,
  env: { HUMAN_CHECK_MODE: "off", FORMS_CLIENT_LIMIT_PER_MINUTE: "100" },
});

function readmeExamples(): string {
  const readme = readFileSync(join(import.meta.dir, "..", "README.md"), "utf8");
  const block =
    /<!-- curl examples:start -->\n```sh\n([\s\S]*?)```\n<!-- curl examples:end -->/.exec(
      readme,
    )?.[1];
  if (!block) throw new Error("no curl examples in the forms README");
  return block;
}

test("every form's curl example is answered as the README says, again and again", async () => {
  await insertOrganization(forms.database.db, {
    slug: "northwind",
    name: "Northwind Cooperative",
    newsletterEnabled: true,
    newsletterOrigins: ["http://localhost:5173"],
  });
  const script = readmeExamples().replaceAll("http://localhost:3000", server.url);
  expect(script.match(/^curl /gm)).toHaveLength(5);
  for (let run = 0; run < 2; run++) {
    const shell = Bun.spawn(["sh", "-e", "-c", script], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([
      new Response(shell.stdout).text(),
      new Response(shell.stderr).text(),
      shell.exited,
    ]);
    expect({ code, err }).toEqual({ code: 0, err: "" });
    expect(out).toBe(
      `${JSON.stringify({ status: "accepted" }).repeat(4)}${JSON.stringify({ status: "pending" })}`,
    );
  }
}, 60_000);
