import { describe, expect, test } from "bun:test";
import {
  awayFromMinuteEdge,
  envelope,
  startRefusingProvider,
  validCareer,
  validContact,
  validMappingCall,
} from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms } = formsWorld();

type ErrorBody = {
  error: {
    type: string;
    code: string;
    message: string;
    request_id: string;
    fields?: { field: string; reason: string }[];
  };
};

describe("content types", () => {
  for (const type of ["text/plain", "application/xml", "application/json-patch+json"]) {
    test(`${type} is 415 unsupported_body`, async () => {
      const response = await forms.post("/v1/public/contact", JSON.stringify(validContact()), {
        headers: { "content-type": type },
      });
      expect(response.status).toBe(415);
      const body = (await response.json()) as ErrorBody;
      expect(body.error.code).toBe("unsupported_body");
      expect(body.error.request_id).toBe(response.headers.get("x-request-id")!);
      expect(response.headers.get("cache-control")).toBe("no-store");
    });
  }

  test("no content type is 415", async () => {
    const response = await forms.handle(
      new Request("http://localhost/v1/public/careers", {
        method: "POST",
        body: new Blob([JSON.stringify(validCareer())]),
        headers: { "x-client-ip": "10.9.9.1" },
      }),
    );
    expect(response.status).toBe(415);
  });

  test("JSON with a charset parameter is read", async () => {
    const response = await forms.post("/v1/public/contact", JSON.stringify(validContact()), {
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(response.status).toBe(202);
  });

  test("malformed JSON is 422 naming the body", async () => {
    const response = await forms.post("/v1/public/contact", '{"name": "Ada",', {
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as ErrorBody;
    expect(body.error.fields).toEqual([
      expect.objectContaining({ field: "body", reason: "invalid_json" }),
    ]);
  });

  test("a JSON array is 422 naming the body", async () => {
    const response = await forms.post("/v1/public/contact", "[1,2]", {
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(422);
    expect(((await response.json()) as ErrorBody).error.fields?.[0]).toMatchObject({
      field: "body",
      reason: "invalid_type",
    });
  });

  test("a file part in place of a text field is invalid_type", async () => {
    const data = new FormData();
    for (const [name, value] of Object.entries(validContact())) data.append(name, String(value));
    data.set("name", new File(["Ada"], "name.txt", { type: "text/plain" }));
    const response = await forms.post("/v1/public/contact", data, { as: "multipart" });
    expect(response.status).toBe(422);
    expect(((await response.json()) as ErrorBody).error.fields).toEqual([
      expect.objectContaining({ field: "name", reason: "invalid_type" }),
    ]);
  });

  test("form arrays may be repeated or bracketed", async () => {
    for (const areas of [
      "areas=engineering&areas=design",
      "areas[]=engineering&areas[]=design",
      "areas[0]=engineering&areas[1]=design",
    ]) {
      const { areas: _drop, ...rest } = validCareer();
      const pairs = new URLSearchParams(
        Object.entries(rest).map(([k, v]) => [k, String(v)]) as [string, string][],
      );
      const response = await forms.post("/v1/public/careers", `${pairs.toString()}&${areas}`, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect({ areas, status: response.status }).toEqual({ areas, status: 202 });
      const team = (await ses.to(forms.teamAddress)).find((e) =>
        e.body.text?.includes(rest.submission_id),
      );
      expect(team?.body.text).toContain("Areas: engineering, design");
    }
  });

  test("the mapping call's stack may come bracketed or dotted in form data", async () => {
    const { stack: _drop, ...rest } = validMappingCall();
    const pairs = new URLSearchParams(
      Object.entries(rest).map(([k, v]) => [k, String(v)]) as [string, string][],
    );
    pairs.append("stack[site]", "Webflow");
    pairs.append("stack.crm", "Pipedrive");
    const response = await forms.post("/v1/public/start", pairs.toString(), {
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(response.status).toBe(202);
    const team = (await ses.to(forms.teamAddress)).find((e) =>
      e.body.text?.includes(rest.submission_id),
    );
    expect(team?.body.text).toContain("Site: Webflow");
    expect(team?.body.text).toContain("CRM: Pipedrive");
  });

  test("a stack part over 200 characters is named with its path", async () => {
    const body = validMappingCall({ stack: { site: "a".repeat(201), crm: "a".repeat(200) } });
    const response = await forms.post("/v1/public/start", body);
    expect(response.status).toBe(422);
    expect(((await response.json()) as ErrorBody).error.fields).toEqual([
      expect.objectContaining({ field: "stack.site", reason: "too_long" }),
    ]);
  });
});

describe("body size", () => {
  test("a body over 64 KiB is 413 body_too_large", async () => {
    const body = validContact({ message: "a".repeat(64 * 1024) });
    const response = await forms.post("/v1/public/contact", body);
    expect(response.status).toBe(413);
    const answer = (await response.json()) as ErrorBody;
    expect(answer.error.code).toBe("body_too_large");
    expect(answer.error.request_id).toBe(response.headers.get("x-request-id")!);
  });

  test("a streamed body without Content-Length stops at 64 KiB", async () => {
    const chunk = new TextEncoder().encode("a".repeat(16 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 10) return controller.close();
        sent += 1;
        controller.enqueue(chunk);
      },
    });
    const response = await forms.handle(
      new Request("http://localhost/v1/public/contact", {
        method: "POST",
        body: stream,
        headers: { "content-type": "application/json", "x-client-ip": "10.8.8.8" },
      }),
    );
    expect(response.status).toBe(413);
    expect(sent).toBeLessThan(10);
  });

  test("a body of exactly 64 KiB is read", async () => {
    const text = JSON.stringify(validContact({ message: "", pad: "" }));
    const exact = text.replace('"pad":""', `"pad":"${"p".repeat(64 * 1024 - text.length)}"`);
    expect(new TextEncoder().encode(exact).length).toBe(64 * 1024);
    const response = await forms.post("/v1/public/contact", exact, {
      headers: { "content-type": "application/json" },
    });
    // Read and validated (the empty message is the only fault), not refused for its size.
    expect(response.status).toBe(422);
    expect(((await response.json()) as ErrorBody).error.fields).toEqual([
      expect.objectContaining({ field: "message", reason: "required" }),
    ]);
  });
});

describe("rate limit", () => {
  test("a sixth submission in a minute from one client is 429, across form routes", async () => {
    const ip = "10.77.0.1";
    await awayFromMinuteEdge();
    const statuses: number[] = [];
    for (const [path, body] of [
      ["/v1/public/contact", validContact()],
      ["/v1/public/careers", validCareer()],
      ["/v1/public/start", validMappingCall()],
      ["/v1/public/newsletter/subscribe", { email: "x@example.com", consent: true }],
      ["/v1/public/contact", validContact()],
      ["/v1/public/contact", validContact()],
    ] as const) {
      statuses.push((await forms.post(path, body, { ip })).status);
    }
    expect(statuses.slice(0, 5)).not.toContain(429);
    expect(statuses[5]).toBe(429);
    const response = await forms.post("/v1/public/careers", validCareer(), { ip });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("60");
    const body = (await response.json()) as ErrorBody;
    expect(body.error).toMatchObject({ type: "rate_limited", code: "too_many_requests" });
  });

  test("the limit comes before validation", async () => {
    const ip = "10.77.0.2";
    await awayFromMinuteEdge();
    for (let i = 0; i < 5; i += 1) {
      expect((await forms.post("/v1/public/contact", {}, { ip })).status).toBe(422);
    }
    expect((await forms.post("/v1/public/contact", {}, { ip })).status).toBe(429);
  });

  test("IPv6 addresses in one /64 are one client", async () => {
    const n = () => (Math.floor(Math.random() * 0xfffe) + 1).toString(16);
    const prefix = `2001:db8:${n()}:${n()}`;
    await awayFromMinuteEdge();
    for (let i = 1; i <= 5; i += 1) {
      const ip = `${prefix}:${i}::${i}`;
      expect((await forms.post("/v1/public/contact", {}, { ip })).status).toBe(422);
    }
    expect((await forms.post("/v1/public/contact", {}, { ip: `${prefix}::9` })).status).toBe(429);
    const nextPrefix = `${prefix.slice(0, prefix.lastIndexOf(":"))}:0::1`;
    expect((await forms.post("/v1/public/contact", {}, { ip: nextPrefix })).status).toBe(422);
  });

  test("another client is not limited", async () => {
    expect(
      (await forms.post("/v1/public/contact", validContact(), { ip: "10.77.0.3" })).status,
    ).toBe(202);
  });
});

describe("email provider", () => {
  for (const status of [400, 500]) {
    test(`a refusal (${status}) is 502 delivery_failed; a retry with the same submission_id sends once`, async () => {
      const refusing = startRefusingProvider(status);
      const broken = await forms.sibling({ SES_ENDPOINT: refusing.url });
      try {
        const body = validContact();
        const refused = await broken.post("/v1/public/contact", body);
        expect(refused.status).toBe(502);
        const error = (await refused.json()) as ErrorBody;
        expect(error.error.code).toBe("delivery_failed");
        expect(refused.headers.get("cache-control")).toBe("no-store");
        expect(refusing.attempts()).toBeGreaterThan(0);
        expect(await ses.to(body.email)).toHaveLength(0);

        const retry = await forms.post("/v1/public/contact", body);
        expect(retry.status).toBe(202);
        const again = await forms.post("/v1/public/contact", body);
        expect(again.status).toBe(202);
        expect(await ses.to(body.email)).toHaveLength(1);
        const team = (await ses.to(forms.teamAddress)).filter((e) =>
          e.body.text?.includes(body.submission_id),
        );
        expect(team).toHaveLength(1);
      } finally {
        await broken.close();
        refusing.close();
      }
    });
  }
});

describe("not configured", () => {
  test("without a sender address every form answers 503 forms_unavailable", async () => {
    const off = await forms.sibling({ FORMS_FROM_EMAIL: undefined });
    try {
      for (const [path, body] of [
        ["/v1/public/contact", validContact()],
        ["/v1/public/careers", validCareer()],
        ["/v1/public/start", validMappingCall()],
        ["/v1/public/newsletter/subscribe", { email: "x@example.com", consent: true }],
        ["/v1/public/newsletter/subscribe/confirm", { t: "a".repeat(43) }],
      ] as const) {
        const response = await off.post(path, body);
        expect({ path, status: response.status }).toEqual({ path, status: 503 });
        expect(((await response.json()) as ErrorBody).error.code).toBe("forms_unavailable");
      }
    } finally {
      await off.close();
    }
  });

  test("without a team address the team forms answer 503 but the digest works", async () => {
    const noTeam = await forms.sibling({ FORMS_TEAM_EMAIL: undefined });
    try {
      expect((await noTeam.post("/v1/public/contact", validContact())).status).toBe(503);
      expect((await noTeam.post("/v1/public/careers", validCareer())).status).toBe(503);
      expect((await noTeam.post("/v1/public/start", validMappingCall())).status).toBe(503);
      const digest = await noTeam.post("/v1/public/newsletter/subscribe", {
        email: "reader@example.com",
        consent: true,
        ...envelope(),
      });
      expect(digest.status).toBe(202);
    } finally {
      await noTeam.close();
    }
  });
});

describe("methods", () => {
  test("GET on a form route is 405 with Allow: POST", async () => {
    const response = await forms.handle(new Request("http://localhost/v1/public/contact"));
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });
});
