import type { Db } from "@newsroom/shared/db/index";
import { iso, type WebhookEndpointOut } from "@newsroom/shared/records";
import type { Caller } from "../auth/service.ts";
import type { ListPage } from "../pagination/page.ts";
import { listEndpointRows } from "./store.ts";

/** The organization's webhook endpoints as one page. The secret is never read, only its hint. */
export async function listWebhookEndpoints(
  db: Db,
  caller: Caller,
): Promise<ListPage<WebhookEndpointOut>> {
  const rows = await listEndpointRows(db, caller.organizationId);
  return {
    object: "list",
    data: rows.map((row) => ({
      object: "webhook_endpoint",
      id: row.id,
      url: row.url,
      events: row.events,
      status: row.status,
      disabled_reason: row.disabledReason ?? null,
      secret_hint: row.secretHint,
      previous_secret_expires_at: iso(row.previousSecretExpiresAt),
      created_at: iso(row.createdAt),
      updated_at: iso(row.updatedAt),
    })),
    has_more: false,
    next_cursor: null,
  };
}
