import { type Static, Type as t } from "@sinclair/typebox";
import { EnvelopeFields } from "../submission/envelope.ts";

/** Subscribe to the service's own weekly digest (double opt-in). */
export const DigestSubscribeIn = t.Object({
  email: t.String({ format: "email", maxLength: 254 }),
  consent: t.Literal(true),
  ...EnvelopeFields,
});
export type DigestSubscribeIn = Static<typeof DigestSubscribeIn>;

/** The confirmation token body (JSON or urlencoded). */
export const ConfirmationIn = t.Object({ t: t.String({ pattern: "^[A-Za-z0-9_-]{43}$" }) });

export const ConfirmationOut = t.Object({
  status: t.Union([t.Literal("confirmed"), t.Literal("expired")]),
});
