import type { Db } from "@newsroom/shared/db/index";
import { invalidParameters } from "@newsroom/shared/errors";
import type { WebhookDeliveryOut } from "@newsroom/shared/records";
import { webhookDeliveryRecord } from "@newsroom/shared/webhook-records";
import type { Caller } from "../auth/service.ts";
import type { CursorCodec } from "../pagination/cursor.ts";
import { DEFAULT_LIMIT } from "../pagination/model.ts";
import { type ListPage, listOf, splitPage } from "../pagination/page.ts";
import { listDeliveryRows } from "./store.ts";

/**
 * The delivery log, newest first, optionally for one endpoint. An endpoint id of another
 * organization matches nothing, like an unknown one.
 */
export async function listWebhookDeliveries(
  deps: { db: Db; cursors: CursorCodec },
  caller: Caller,
  options: { endpointId?: string; limit?: number; cursor?: string },
): Promise<ListPage<WebhookDeliveryOut>> {
  const limit = options.limit ?? DEFAULT_LIMIT;
  const after = options.cursor
    ? deps.cursors.decode(caller.organizationId, "webhook_deliveries", options.cursor)
    : null;
  if (options.cursor && !after) {
    throw invalidParameters([
      { field: "cursor", reason: "invalid", message: "The cursor is not one this list gave out." },
    ]);
  }
  const fetched = await listDeliveryRows(deps.db, caller.organizationId, {
    endpointId: options.endpointId?.toLowerCase(),
    after,
    limit,
  });
  const { rows, hasMore } = splitPage(fetched, limit);
  const data = rows.map(webhookDeliveryRecord);
  return listOf(data, hasMore, () => {
    const last = rows[rows.length - 1]!;
    return deps.cursors.encode(caller.organizationId, "webhook_deliveries", {
      micros: BigInt(last.micros),
      id: last.id,
    });
  });
}
