import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { orgWithMembers, type WebClient, type WebHarness, webHarness } from "./support/web-app.ts";

/**
 * Each web form is decoded with the schema of the internal API route it mirrors: what one
 * refuses, the other refuses, naming the same field (the page beside the field, the API in
 * `error.fields`).
 */
describe("web forms refuse what their API routes refuse", () => {
  let h: WebHarness;
  let owner: WebClient;

  beforeAll(async () => {
    h = await webHarness();
    const org = await orgWithMembers(h, "forms-org", 0);
    owner = await h.signedIn(org.members.owner);
  }, 120_000);
  afterAll(() => h?.close());

  const cases: {
    name: string;
    page: string;
    form: Record<string, string>;
    api: string;
    body: Record<string, unknown>;
    field: string;
    shown: string;
  }[] = [
    {
      name: "a key's lifetime outside the four offered",
      page: "/app/orgs/forms-org/keys",
      form: { environment: "test", scopes: "stories:read", lifetime_days: "45" },
      api: "/orgs/forms-org/keys",
      body: { environment: "test", scopes: ["stories:read"], lifetime_days: 45 },
      field: "lifetime_days",
      shown: "Choose a lifetime: 30, 90, 180 or 365 days.",
    },
    {
      name: "a site's accent that is no hex colour",
      page: "/app/orgs/forms-org/sites",
      form: { site: "forms-site", name: "Forms", publisher: "Acme", accent: "blue" },
      api: "/orgs/forms-org/sites",
      body: { site: "forms-site", name: "Forms", publisher: "Acme", accent: "blue" },
      field: "accent",
      shown: "Write a hex colour such as #1a73e8.",
    },
    {
      name: "a site's slug with a space",
      page: "/app/orgs/forms-org/sites",
      form: { site: "forms site", name: "Forms", publisher: "Acme" },
      api: "/orgs/forms-org/sites",
      body: { site: "forms site", name: "Forms", publisher: "Acme" },
      field: "site",
      shown: "Use lower-case letters, digits and hyphens (at most 48).",
    },
    {
      name: "a member's address without a domain",
      page: "/app/orgs/forms-org/members",
      form: { email: "someone@", role: "viewer" },
      api: "/orgs/forms-org/members",
      body: { email: "someone@", role: "viewer" },
      field: "email",
      shown: "Enter an email address such as name@example.com.",
    },
    {
      name: "a member's role that does not exist",
      page: "/app/orgs/forms-org/members",
      form: { email: "someone@example.com", role: "superuser" },
      api: "/orgs/forms-org/members",
      body: { email: "someone@example.com", role: "superuser" },
      field: "role",
      shown: "Choose a role.",
    },
  ];

  for (const c of cases) {
    test(c.name, async () => {
      await owner.get(c.page);
      const page = await owner.post(c.page, c.form);
      expect(page.status).toBe(422);
      expect(page.text).toContain(c.shown);
      const api = await h.admin("POST", c.api, c.body);
      expect(api.status).toBe(422);
      const fields = (api.body.error.fields as { field: string }[]).map((f) => f.field);
      expect(fields).toContain(c.field);
    });
  }
});
