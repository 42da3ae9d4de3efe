import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statusIncidents } from "@newsroom/shared/db/schema";
import { unique, type WebHarness, webHarness } from "./support/web-app.ts";

describe("the status page's staff pages", () => {
  let h: WebHarness;
  beforeAll(async () => {
    h = await webHarness();
    await h.admin("POST", "/orgs", { slug: "armage", name: "House" });
    await h.admin("POST", "/orgs", { slug: "client", name: "Client" });
  });
  afterAll(async () => {
    await h.close();
  });

  test("a client's owner and a house editor get 404; signed out, the sign-in page", async () => {
    const owner = unique("client-owner");
    await h.admin("POST", "/orgs/client/members", { email: owner, role: "owner" });
    const editor = unique("house-editor");
    await h.admin("POST", "/orgs/armage/members", { email: editor, role: "editor" });
    for (const email of [owner, editor]) {
      const person = await h.signedIn(email);
      expect((await person.get("/app/status")).status).toBe(404);
      expect((await person.get("/app/status/incidents/new")).status).toBe(404);
      const posted = await person.post("/app/status/incidents", { name: "x", body: "y" });
      expect(posted.status).toBe(404);
    }
    const anonymous = h.visitor();
    const answer = await anonymous.get("/app/status");
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("/app/sign-in");
    expect(await h.runtime.database.db.select().from(statusIncidents)).toHaveLength(0);
  });

  test("staff without the CSRF token: refused, nothing written", async () => {
    const email = unique("staff");
    await h.admin("POST", "/orgs/armage/members", { email, role: "owner" });
    const staff = await h.signedIn(email);
    await staff.get("/app/status/incidents/new");
    const forged = await staff.post("/app/status/incidents", {
      _csrf: "forged",
      name: "Forged",
      body: "Forged.",
    });
    expect(forged.status).toBe(403);
    expect(await h.runtime.database.db.select().from(statusIncidents)).toHaveLength(0);
  });

  test("a staff form with errors: 422, each error beside its field, values kept", async () => {
    const email = unique("staff-errors");
    await h.admin("POST", "/orgs/armage/members", { email, role: "owner" });
    const staff = await h.signedIn(email);
    await staff.get("/app/status/incidents/new?kind=maintenance");
    const answer = await staff.post("/app/status/incidents", {
      kind: "maintenance",
      name: "Upgrade",
      impact: "maintenance",
      status: "scheduled",
      body: "",
      scheduled_for: "2030-01-10T22:00",
      scheduled_until: "2030-01-10T21:00",
    });
    expect(answer.status).toBe(422);
    expect(answer.text).toContain('id="field-body-error"');
    expect(answer.text).toContain('id="field-scheduled_until-error"');
    expect(answer.text).toContain('value="Upgrade"');
  });

  test("the public page needs no session and sets no cookie; /internal stays behind the token", async () => {
    const page = await fetch(`${h.url}/status`);
    expect(page.status).toBe(200);
    expect(page.headers.getSetCookie()).toEqual([]);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    const internal = await fetch(`${h.url}/internal/v1/status/incidents`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x", body: "y" }),
    });
    expect(internal.status).toBe(401);
  });
});
