import { type Static, Type as t } from "@sinclair/typebox";
import { EnvelopeFields } from "../submission/envelope.ts";

const StackPart = t.Optional(t.String({ maxLength: 200 }));

/** The mapping-call request: the organization's stack, its need and a reply address. */
export const MappingCallIn = t.Object({
  email: t.String({ format: "email", maxLength: 254 }),
  need: t.String({ minLength: 10, maxLength: 2000 }),
  stack: t.Optional(
    t.Object({ site: StackPart, approvals: StackPart, crm: StackPart, sign_in: StackPart }),
  ),
  human_check_token: t.Optional(t.String({ maxLength: 2048, trim: false })),
  consent: t.Literal(true),
  ...EnvelopeFields,
});
export type MappingCallIn = Static<typeof MappingCallIn>;
