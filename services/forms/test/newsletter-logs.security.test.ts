import { expect, test } from "bun:test";
import { log } from "@newsroom/shared/log";
import { answerRecorder } from "@newsroom/shared/openapi/recorder";
import { sql } from "drizzle-orm";
import { address, envelope } from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { forms, org } = formsWorld({ org: {} });

test("a failed query is logged with its class and code, never the address or redirect it held", async () => {
  // This file's own database: the table the subscribe flow writes refuses every new row, so the
  // failing query is the insert that carries the address and the redirect.
  await forms.database.db.execute(
    sql`alter table newsletter_confirmations add constraint refuse_every_row check (false) not valid`,
  );
  const email = address("logged");
  const redirect = `${org.origin}/thanks?campaign=spring-${email}`;
  const capture = log.capture();
  // A broken database is outside the contract: its 500 is not an answer the document describes.
  answerRecorder.enabled = false;
  let response: Response;
  try {
    response = await forms.post(
      `/v1/public/newsletter/${org.slug}/subscribe`,
      { email, redirect, consent: true, ...envelope(forms.clock.now().getTime()) },
      { headers: { origin: org.origin, accept: "application/json" } },
    );
  } finally {
    answerRecorder.enabled = true;
    capture.stop();
  }
  expect(response.status).toBe(500);
  const failure = capture.lines
    .map((line) => JSON.parse(line))
    .find((line) => line.message === "unhandled error");
  expect(failure).toBeDefined();
  const logged = capture.lines.join("\n");
  expect(logged).not.toContain(email);
  expect(logged).not.toContain("campaign=spring");
  expect(logged).not.toMatch(/Failed query|params:|insert into|select /i);
  expect(failure.error_class).toBe("DrizzleQueryError");
  expect(failure.error_code).toBe("23514"); // check_violation, from the driver's error
  expect(failure.error).toContain("refuse_every_row");
});
