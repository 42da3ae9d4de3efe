import { type Static, Type as t } from "@sinclair/typebox";
import { OptionalEnvelopeFields } from "../submission/envelope.ts";

/**
 * Subscribe to the status page's incident updates by email (double opt-in). The status page is
 * served from caches, so its form may come without `submission_id` and `started_at`.
 */
export const StatusSubscribeIn = t.Object({
  email: t.String({ format: "email", maxLength: 254 }),
  ...OptionalEnvelopeFields,
});
export type StatusSubscribeIn = Static<typeof StatusSubscribeIn>;
