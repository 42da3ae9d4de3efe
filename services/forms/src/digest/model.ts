import { type Static, Type as t } from "@sinclair/typebox";
import { EnvelopeFields } from "../submission/envelope.ts";

/** Subscribe to the service's own weekly digest (double opt-in). */
export const DigestSubscribeIn = t.Object({
  email: t.String({ format: "email", maxLength: 254 }),
  consent: t.Literal(true),
  ...EnvelopeFields,
});
export type DigestSubscribeIn = Static<typeof DigestSubscribeIn>;
