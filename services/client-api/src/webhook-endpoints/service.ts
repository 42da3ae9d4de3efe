import type { Db } from "@newsroom/shared/db/index";
import type { WebhookEndpointOut } from "@newsroom/shared/records";
import { webhookEndpointRecord } from "@newsroom/shared/webhook-records";
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
    data: rows.map(webhookEndpointRecord),
    has_more: false,
    next_cursor: null,
  };
}
