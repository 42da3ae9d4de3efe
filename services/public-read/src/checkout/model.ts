import { type Static, Type as T } from "@sinclair/typebox";

export const CHECKOUT_ID_PATTERN = "^cs_(test|live)_[A-Za-z0-9]{10,200}$";

export const CheckoutParams = T.Object({
  id: T.String({ minLength: 13, maxLength: 208, pattern: CHECKOUT_ID_PATTERN }),
});

/** The spec's checkout summary: these fields and no others. */
export const CheckoutSummaryOut = T.Object({
  status: T.Union([T.Literal("open"), T.Literal("complete"), T.Literal("expired")]),
  payment_status: T.String(),
  plan: T.Union([T.Object({ id: T.String(), name: T.String() }), T.Null()]),
  interval: T.Union([T.String(), T.Null()]),
  amount_total: T.Union([T.Integer(), T.Null()]),
  currency: T.Union([T.String(), T.Null()]),
});
export type CheckoutSummaryOut = Static<typeof CheckoutSummaryOut>;
