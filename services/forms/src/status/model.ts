import { type Static, Type as t } from "@sinclair/typebox";
import { EnvelopeFields } from "../submission/envelope.ts";

/** Subscribe to the status page's incident updates by email (double opt-in). */
export const StatusSubscribeIn = t.Object({
  email: t.String({ format: "email", maxLength: 254 }),
  ...EnvelopeFields,
});
export type StatusSubscribeIn = Static<typeof StatusSubscribeIn>;
