import { type Static, Type as T } from "@sinclair/typebox";
import { Cursor, Limit, UuidParam } from "../pagination/model.ts";

export const DeliveryListQuery = T.Object({
  endpoint_id: T.Optional(UuidParam),
  limit: T.Optional(Limit),
  cursor: T.Optional(Cursor),
});
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;
