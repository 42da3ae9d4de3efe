import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ssoVerifiedDomains } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import { txtLookup } from "../src/identity/sso/domains.ts";
import { type DnsServer, startDnsServer } from "./support/dns-server.ts";
import { type Harness, workspaceHarness } from "./support/harness.ts";

/**
 * Single sign-on domains through the internal API (PostgreSQL when DATABASE_URL is set): a domain
 * counts once its TXT record holds the organization's token, for one organization only, even when
 * two verify it at the same moment.
 */
let h: Harness;
let dns: DnsServer;

beforeAll(async () => {
  dns = await startDnsServer();
  h = await workspaceHarness({ lookupTxt: txtLookup(dns.server) });
  for (const slug of ["dom-a", "dom-b"]) {
    await h.call("POST", "/orgs", { slug, name: slug });
  }
}, 60_000);
afterAll(async () => {
  await h?.close();
  await dns?.close();
});

const configure = (org: string, domains: string[]) =>
  h.call("PUT", `/orgs/${org}/sso`, {
    issuer: "https://login.example.com",
    client_id: "client",
    client_secret: "secret",
    allowed_domains: domains,
    enabled: true,
  });

async function publish(org: string, domain: string) {
  const listed = await h.call("GET", `/orgs/${org}/sso/domains`);
  const entry = listed.body.data.find((d: { domain: string }) => d.domain === domain);
  dns.records.set(entry.record.name, [entry.record.value]);
  return entry;
}

const verify = (org: string, domain: string) =>
  h.call("POST", `/orgs/${org}/sso/domains/${domain}/verify`);

describe("domain verification", () => {
  test("pending until the record holds the token; then the organization's alone", async () => {
    expect((await configure("dom-a", ["a.example"])).status).toBe(200);
    expect((await configure("dom-b", ["a.example"])).status).toBe(200);
    const listed = await h.call("GET", "/orgs/dom-a/sso/domains");
    expect(listed.body.data).toEqual([
      {
        object: "sso_domain",
        domain: "a.example",
        status: "pending",
        verified_at: null,
        record: {
          type: "TXT",
          name: "_newsroom-verify.a.example",
          value: expect.stringMatching(/^newsroom-domain-verification=[A-Za-z0-9_-]{32}$/),
        },
      },
    ]);
    const other = await h.call("GET", "/orgs/dom-b/sso/domains");
    expect(other.body.data[0].record.value).not.toBe(listed.body.data[0].record.value);

    const missing = await verify("dom-a", "a.example");
    expect(missing.status).toBe(422);
    expect(missing.body.error.fields[0]).toMatchObject({
      field: "domain",
      reason: "record_missing",
    });
    // Another organization's token in the record proves nothing for this one.
    await publish("dom-b", "a.example");
    expect((await verify("dom-a", "a.example")).status).toBe(422);

    await publish("dom-a", "a.example");
    const verified = await verify("dom-a", "a.example");
    expect(verified.status).toBe(200);
    expect(verified.body.status).toBe("verified");
    await publish("dom-b", "a.example");
    const taken = await verify("dom-b", "a.example");
    expect(taken.status).toBe(422);
    expect(taken.body.error.fields[0].reason).toBe("taken");
    expect((await verify("dom-a", "not-listed.example")).status).toBe(404);
  });

  test("two organizations verifying one domain at once: one gets it", async () => {
    await configure("dom-a", ["a.example", "race.example"]);
    await configure("dom-b", ["race.example"]);
    const a = await publish("dom-a", "race.example");
    const b = await publish("dom-b", "race.example");
    dns.records.set(a.record.name, [a.record.value, b.record.value]);
    const answers = await Promise.all([
      verify("dom-a", "race.example"),
      verify("dom-b", "race.example"),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 422]);
    const rows = await h.database.db
      .select()
      .from(ssoVerifiedDomains)
      .where(eq(ssoVerifiedDomains.domain, "race.example"));
    expect(rows).toHaveLength(1);
  });

  test("a changed list keeps the domains that stay verified and forgets the others", async () => {
    await configure("dom-a", ["a.example", "race.example", "new.example"]);
    const after = await h.call("GET", "/orgs/dom-a/sso/domains");
    expect(after.body.data.find((d: { domain: string }) => d.domain === "a.example").status).toBe(
      "verified",
    );
    await configure("dom-a", ["new.example"]);
    const rows = await h.database.db
      .select()
      .from(ssoVerifiedDomains)
      .where(eq(ssoVerifiedDomains.domain, "a.example"));
    expect(rows).toHaveLength(0);
    // Free again: the other organization may prove it now.
    await configure("dom-b", ["a.example"]);
    await publish("dom-b", "a.example");
    expect((await verify("dom-b", "a.example")).status).toBe(200);
  });
});
