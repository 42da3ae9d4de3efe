import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditEvents } from "@newsroom/shared/db/schema";
import { eventually } from "@newsroom/shared/testing/eventually";
import { eq } from "drizzle-orm";
import {
  startWordPress,
  type WordPressSite,
} from "../../services/webhooks/test/support/wordpress.ts";
import { relayOnce } from "../../services/workspace/src/outbox/relay.ts";
import { orgWithDraft, transition } from "../../services/workspace/test/support/harness.ts";
import { endpointsHarness, type Harness } from "./support/endpoints.ts";

/**
 * CMS connections at the contract's paths on the workspace's internal API, which sends each
 * command to the webhooks service: a WordPress connection is added (the credential in no
 * answer), checked, written into when a story is published, its writes read per story, changed,
 * and deleted; each command audited.
 */
let h: Harness;
let wp: WordPressSite;

beforeAll(async () => {
  [h, wp] = await Promise.all([endpointsHarness({ allowInsecureTargets: true }), startWordPress()]);
});
afterAll(async () => {
  await h?.close();
  await wp?.stop();
});

describe("CMS connections through the workspace", () => {
  test("add, check, publish into WordPress, read the story's writes, change, delete", async () => {
    const { orgId, storyId } = await orgWithDraft(h, "cms-flow");
    const created = await h.call("POST", "/orgs/cms-flow/cms_connections", {
      kind: "wordpress",
      url: wp.url,
      username: wp.admin.username,
      application_password: wp.admin.applicationPassword,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: "cms_connection",
      kind: "wordpress",
      url: wp.url,
    });
    expect(JSON.stringify(created.body)).not.toContain(wp.admin.applicationPassword);
    const id = created.body.id as string;

    const checked = await h.call("POST", `/cms_connections/${id}/check`);
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({ ok: true, connection: { id, status: "working" } });

    for (const action of ["submit", "approve", "publish"]) {
      expect((await transition(h, storyId, action)).status).toBe(200);
    }
    await relayOnce(h.database.db, h.bus);
    const writes = await eventually(
      () => h.call("GET", `/stories/${storyId}/cms_writes`),
      (answer) => answer.body?.data?.[0]?.status === "done",
      { message: "the story's write into WordPress, done", timeoutMs: 30_000 },
    );
    expect(writes.body.data).toHaveLength(1);
    expect(writes.body.data[0]).toMatchObject({
      connection_id: id,
      action: "publish",
      performed: "create",
      last_error: null,
    });
    const posts = await wp.rest<{ title: { rendered: string }; status: string }[]>("/posts");
    expect(posts.body.map((post) => post.title.rendered)).toContain("First story");

    const listed = await h.call("GET", "/orgs/cms-flow/cms_connections");
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([id]);
    const patched = await h.call("PATCH", `/cms_connections/${id}`, {
      enabled: false,
      unpublish_mode: "trash",
    });
    expect(patched.body).toMatchObject({ enabled: false, unpublish_mode: "trash" });
    const deleted = await h.call("DELETE", `/cms_connections/${id}`);
    expect(deleted.status).toBe(200);
    expect((await h.call("POST", `/cms_connections/${id}/check`)).status).toBe(404);

    const audit = await h.database.db
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(eq(auditEvents.subjectId, id));
    expect(audit.map((row) => row.action).sort()).toEqual([
      "cms_connection.created",
      "cms_connection.deleted",
      "cms_connection.updated",
    ]);
    expect(orgId).toBeTruthy();
  });

  test("validation errors come back from the webhooks service naming the field", async () => {
    await orgWithDraft(h, "cms-invalid");
    const answer = await h.call("POST", "/orgs/cms-invalid/cms_connections", {
      kind: "wordpress",
      url: "ftp://example.com",
      username: "editor",
      application_password: "abcd efgh ijkl mnop qrst uvwx",
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error.fields[0].field).toBe("url");
  });
});
