import { type Static, Type as t } from "@sinclair/typebox";
import { EnvelopeFields } from "../submission/envelope.ts";

/** Path parameter `org`: an organization slug. */
export const ORG_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** Subscribe to an organization's newsletter from its own website. */
export const OrganizationSubscribeIn = t.Object({
  email: t.String({ format: "email", maxLength: 254 }),
  consent: t.Literal(true),
  redirect: t.Optional(
    t.String({ maxLength: 2000, description: "return URL on an allowed origin (form posts)" }),
  ),
  human_check_token: t.Optional(t.String({ maxLength: 2048, trim: false })),
  ...EnvelopeFields,
});
export type OrganizationSubscribeIn = Static<typeof OrganizationSubscribeIn>;

export const OrganizationSubscribeOut = t.Object({
  status: t.Union([t.Literal("pending"), t.Literal("subscribed")]),
});

/** The `?newsletter=` value of a form post's redirect. */
export type FormOutcome = "pending" | "subscribed" | "invalid" | "closed" | "confirmed";
