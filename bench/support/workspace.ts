/**
 * The workspace internal API as the benches use it: organizations, keys and published stories.
 * No side effects on import (the publisher process loads it alone).
 */
export const ADMIN_TOKEN = "bench-admin-token-0123456789";

/** A call to the workspace internal API as the operator. */
export async function workspaceCall(
  api: string,
  method: string,
  path: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: the internal API's answers, read by field name
): Promise<any> {
  const response = await fetch(api + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  }
  return response.json();
}

/** Creates an organization with its newsroom running and `stories` published stories. */
export async function seedOrganization(api: string, slug: string, stories: number) {
  await workspaceCall(api, "POST", "/orgs", {
    slug,
    name: `Bench ${slug}`,
    newsroom_running: true,
  });
  for (let i = 0; i < stories; i++) await publishStory(api, slug, `${slug}-${i}`);
}

/** One story created, submitted, approved and published through the internal API. */
export async function publishStory(api: string, org: string, slug: string): Promise<void> {
  const story = await workspaceCall(api, "POST", `/orgs/${org}/stories`, {
    type: "insight",
    slug,
    title: `Bench story ${slug}`,
    summary: "A story published by the benchmark.",
    body: [{ type: "paragraph", text: "Load." }],
    topics: ["bench"],
  });
  for (const action of ["submit", "approve", "publish"]) {
    await workspaceCall(api, "POST", `/stories/${story.id}/transitions`, {
      action,
      actor_role: "approver",
    });
  }
}
