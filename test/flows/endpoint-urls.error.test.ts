import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { endpointsHarness, type Harness } from "./support/endpoints.ts";

/** A refused endpoint URL says what is allowed and why; a local receiver is named as such. */
describe("webhook endpoint URLs", () => {
  let strict: Harness;
  let local: Harness;
  let ports: Harness;
  beforeAll(async () => {
    strict = await endpointsHarness();
    local = await endpointsHarness({ allowInsecureTargets: true });
    ports = await endpointsHarness({ allowInsecureTargets: [4000, 4010] });
    for (const h of [strict, local, ports]) {
      await h.call("POST", "/orgs", { slug: "urls", name: "Urls" });
    }
  });
  afterAll(async () => {
    await strict.close();
    await local.close();
    await ports.close();
  });

  const create = (h: Harness, url: string) =>
    h.call("POST", "/orgs/urls/webhook_endpoints", { url, events: ["story.published"] });

  for (const [url, reason] of [
    ["http://hooks.example.com/in", "https_required"],
    ["https://203.0.113.7/in", "ip_address_not_allowed"],
    ["https://[2001:db8::1]/in", "ip_address_not_allowed"],
    ["https://localhost/in", "private_host"],
    ["https://printer.local/in", "private_host"],
    ["https://api.internal/in", "private_host"],
    ["https://hooks.example.com:8443/in", "port_not_allowed"],
    ["https://user:pw@hooks.example.com/in", "credentials_in_url"],
    ["https://intranet/in", "invalid_host"],
    ["not a url", "invalid_url"],
    ["http://127.0.0.1:8080/in", "https_required"],
  ] as const) {
    test(`refuses ${url} (${reason})`, async () => {
      const response = await create(strict, url);
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe("validation_failed");
      expect(response.body.error.fields).toEqual([
        expect.objectContaining({ field: "url", reason }),
      ]);
    });
  }

  test("a local http URL names WEBHOOK_ALLOW_INSECURE_TARGETS and what it accepts", async () => {
    for (const url of ["http://127.0.0.1:8080/in", "http://localhost:8080/in"]) {
      const refused = await create(strict, url);
      expect(refused.status).toBe(422);
      const [field] = refused.body.error.fields;
      expect(field.reason).toBe("https_required");
      expect(field.message).toContain("WEBHOOK_ALLOW_INSECURE_TARGETS=true");
      expect(field.message).toContain("http://localhost:<port>");
      expect(field.message).toContain("refused in production");
    }
    const https = await create(strict, "https://localhost/in");
    expect(https.body.error.fields[0]).toMatchObject({ reason: "private_host" });
    expect(https.body.error.fields[0].message).toContain("WEBHOOK_ALLOW_INSECURE_TARGETS");
  });

  test("with the ports listed, only those local ports are accepted", async () => {
    for (const url of ["http://127.0.0.1:4000/in", "http://localhost:4010/in"]) {
      expect((await create(ports, url)).status).toBe(201);
    }
    for (const url of [
      "http://127.0.0.1:4001/in",
      "http://127.0.0.1/in",
      "http://localhost:8080/in",
      "https://127.0.0.1:5432/in",
    ]) {
      const refused = await create(ports, url);
      expect({ url, status: refused.status }).toEqual({ url, status: 422 });
      expect(refused.body.error.fields[0].message).toContain("WEBHOOK_INSECURE_TARGET_PORTS");
    }
    // `true` alone, the older form, still opens every local port.
    expect((await create(local, "http://127.0.0.1:4001/in")).status).toBe(201);
  });

  test("a public URL's refusal carries no local hint", async () => {
    const refused = await create(strict, "http://hooks.example.com/in");
    expect(refused.body.error.fields[0].message).toBe(
      "The URL must use https: payloads are signed, not encrypted.",
    );
  });

  test("with the switch on, http://localhost:<port> is accepted like http://127.0.0.1:<port>", async () => {
    for (const url of ["http://localhost:8080/in", "http://127.0.0.1:8080/in"]) {
      expect((await create(local, url)).status).toBe(201);
    }
    const other = await create(local, "http://10.0.0.1:8080/in");
    expect(other.status).toBe(422);
    expect((await create(local, "http://[::1]:8080/in")).status).toBe(422);
  });
});
