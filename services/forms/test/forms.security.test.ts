import { describe, expect, test } from "bun:test";
import { openHumanCheck } from "../src/human-check.ts";
import {
  clientIp,
  toSearchParams,
  validCareer,
  validContact,
  validMappingCall,
} from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms } = formsWorld();

/** Status, body and headers, without the one header that differs per response. */
async function shape(response: Response) {
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => {
    if (name !== "x-request-id") headers.push([name, value]);
  });
  return { status: response.status, headers: headers.sort(), body: await response.text() };
}

describe("bot screening", () => {
  const automated: [string, () => Record<string, unknown>][] = [
    ["a filled honeypot", () => ({ fax: "+1 555 0100" })],
    ["sent 1 s after the form was shown", () => ({ started_at: Date.now() - 1_000 })],
    ["a start time in the future", () => ({ started_at: Date.now() + 60_000 })],
    ["a form shown over 24 h ago", () => ({ started_at: Date.now() - 24 * 3600_000 - 60_000 })],
  ];
  for (const [name, overrides] of automated) {
    for (const [path, valid] of [
      ["/v1/public/contact", validContact],
      ["/v1/public/careers", validCareer],
      ["/v1/public/start", validMappingCall],
    ] as const) {
      test(`${path}: ${name} gets the identical 202 and sends nothing`, async () => {
        const bot = valid(overrides());
        const person = valid({ submission_id: bot.submission_id });
        // The same submission id: the bot's answer must not differ from the person's.
        const botAnswer = await shape(await forms.post(path, bot));
        expect(await ses.to(bot.email)).toHaveLength(0);
        const personAnswer = await shape(await forms.post(path, { ...person, email: bot.email }));
        expect(botAnswer).toEqual(personAnswer);
        expect(botAnswer.status).toBe(202);
        expect(await ses.to(bot.email)).toHaveLength(1);
      });
    }
  }

  test("a form post's filled honeypot is dropped too", async () => {
    const bot = validContact({ fax: "x" });
    const response = await forms.post("/v1/public/contact", bot, { as: "form" });
    expect(response.status).toBe(202);
    expect(await ses.to(bot.email)).toHaveLength(0);
    const team = (await ses.to(forms.teamAddress)).filter((e) =>
      e.body.text?.includes(bot.submission_id),
    );
    expect(team).toHaveLength(0);
  });

  test("a submission 2 s after the form was shown counts as a person", async () => {
    forms.clock.advance(0);
    const body = validContact({ started_at: Date.now() - 2_050 });
    expect((await forms.post("/v1/public/contact", body)).status).toBe(202);
    expect(await ses.to(body.email)).toHaveLength(1);
  });
});

describe("human check on the mapping call", () => {
  test("a missing token is 422 naming human_check_token", async () => {
    const body = validMappingCall({ human_check_token: undefined });
    const response = await forms.post("/v1/public/start", body);
    expect(response.status).toBe(422);
    expect(((await response.json()) as { error: { fields: unknown[] } }).error.fields).toEqual([
      expect.objectContaining({ field: "human_check_token", reason: "required" }),
    ]);
    expect(await ses.to(body.email)).toHaveLength(0);
  });

  test("a failed check is 422 naming human_check_token", async () => {
    for (const token of ["test-fail", "TEST-PASS", "test-pass "]) {
      const body = validMappingCall({ human_check_token: token });
      const response = await forms.post("/v1/public/start", body, { as: "form" });
      expect(response.status).toBe(422);
      const { error } = (await response.json()) as { error: { fields: { field: string }[] } };
      expect(error.fields.map((f) => f.field)).toEqual(["human_check_token"]);
      expect(await ses.to(body.email)).toHaveLength(0);
    }
  });

  test("exactly test-pass passes in test mode", async () => {
    const body = validMappingCall();
    expect((await forms.post("/v1/public/start", body)).status).toBe(202);
    expect(await ses.to(body.email)).toHaveLength(1);
  });

  test("turnstile mode asks the provider with the secret, the token and the client address", async () => {
    const seen: URLSearchParams[] = [];
    const provider = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => {
        const form = new URLSearchParams(await request.text());
        seen.push(form);
        return Response.json({ success: form.get("response") === "good-token" });
      },
    });
    try {
      const check = openHumanCheck(
        { HUMAN_CHECK_MODE: "turnstile", TURNSTILE_SECRET: "secret-1" },
        { verifyUrl: `http://127.0.0.1:${provider.port}/siteverify` },
      );
      expect(await check.verify("good-token", "203.0.113.7")).toBe("passed");
      expect(await check.verify("bad-token", "203.0.113.7")).toBe("failed");
      expect(await check.verify(undefined, "203.0.113.7")).toBe("failed");
      expect(seen).toHaveLength(2);
      expect(seen[0]!.get("secret")).toBe("secret-1");
      expect(seen[0]!.get("remoteip")).toBe("203.0.113.7");
    } finally {
      provider.stop(true);
    }
  });
});

describe("what emails carry", () => {
  test("the acknowledgement repeats nothing the sender typed", async () => {
    const body = validContact({
      name: "Visit cheap-pills.example now",
      message: "Buy now at cheap-pills.example, limited offer!",
    });
    expect((await forms.post("/v1/public/contact", body)).status).toBe(202);
    const [ack] = await ses.to(body.email);
    expect(ack).toBeDefined();
    expect(JSON.stringify(ack)).not.toContain("cheap-pills");
  });

  test("line breaks in a name never reach a header", async () => {
    const body = validContact({ name: "Ada\r\nBcc: victim@example.com" });
    expect((await forms.post("/v1/public/contact", body)).status).toBe(202);
    const team = (await ses.to(forms.teamAddress)).find((e) =>
      e.body.text?.includes(body.submission_id),
    );
    expect(team?.subject).toBe("Contact enquiry (websites) from Ada Bcc: victim@example.com");
    expect(team?.destination.bcc).toEqual([]);
    expect(await ses.to("victim@example.com")).toHaveLength(0);
  });

  test("control and bidirectional formatting characters never reach a subject", async () => {
    const body = validContact({
      name: "Ada\u202egnp.exe\u202c \u2066Love\u2069\u200elace\u200f\u061c\u0085\u009bx\u0007",
    });
    expect((await forms.post("/v1/public/contact", body)).status).toBe(202);
    const team = (await ses.to(forms.teamAddress)).find((e) =>
      e.body.text?.includes(body.submission_id),
    );
    expect(team?.subject).toBe("Contact enquiry (websites) from Adagnp.exe Lovelace x");
  });

  test("names like __proto__ in form data change nothing", async () => {
    const pairs = toSearchParams(validContact());
    pairs.append("__proto__[polluted]", "yes");
    pairs.append("constructor[prototype][polluted]", "yes");
    const response = await forms.post("/v1/public/contact", pairs.toString(), {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      ip: clientIp(),
    });
    expect(response.status).toBe(202);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
