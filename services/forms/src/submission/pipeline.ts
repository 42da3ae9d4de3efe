import { validationFailed } from "@newsroom/shared/errors";
import { clientIpOf } from "@newsroom/shared/http/request-context";
import type { Mailer } from "@newsroom/shared/mailer";
import type { Static, TObject } from "@sinclair/typebox";
import type { FormsDeps } from "../deps.ts";
import { readBody } from "../request/body.ts";
import { enforceClientLimit, guarded, json, NO_STORE, requireMailer } from "../request/respond.ts";
import { deliverOnce } from "./deliver.ts";
import { checkSubmission, type Envelope, looksAutomated } from "./envelope.ts";

/** One website form: its fields and what its email batch is. */
export interface FormSpec<S extends TObject> {
  /** The route's name in the idempotency record (`contact`, `careers`, ...). */
  route: string;
  /** The body's schema (fields and envelope): the source of every field rule. */
  schema: S;
  /** Sends to FORMS_TEAM_EMAIL, so that address must be configured too. */
  team: boolean;
  /** Verifies `human_check_token` (the mapping call). */
  humanCheck: boolean;
  /** The email batch. Throws MailDeliveryError when the provider refuses. */
  deliver(input: Static<S> & Envelope, mailer: Mailer): Promise<void>;
}

/**
 * The accepted-submission record: byte for byte the same for a sent, repeated, throttled or
 * silently dropped submission, so the answer tells nothing about what happened after it.
 */
export function accepted(): Response {
  return json({ status: "accepted" }, 202);
}

/**
 * The processing order of every website form: configured, rate limit per client, body,
 * validation (every bad field at once), bot screening (dropped with the identical 202), human
 * check, then one idempotent email batch keyed by `submission_id`.
 */
export function submitForm<S extends TObject>(
  deps: FormsDeps,
  request: Request,
  spec: FormSpec<S>,
): Promise<Response> {
  return guarded(request, { ...NO_STORE }, async () => {
    const mailer = requireMailer(deps, { team: spec.team });
    await enforceClientLimit(deps, request, "forms");
    const body = await readBody(request);
    const result = checkSubmission(spec.schema, body.fields, body.kind);
    if ("errors" in result) throw validationFailed(result.errors);
    const input = result.value as Static<S> & Envelope;
    if (looksAutomated(input, deps.now())) return accepted();
    if (spec.humanCheck)
      await requireHuman(deps, request, input as { human_check_token?: unknown });
    await deliverOnce(deps.db, input.submission_id, spec.route, deps.now, () =>
      spec.deliver(input, mailer),
    );
    return accepted();
  });
}

/** 422 naming `human_check_token` unless the check passes (or is off in this environment). */
export async function requireHuman(
  deps: FormsDeps,
  request: Request,
  input: { human_check_token?: unknown },
): Promise<void> {
  const token = typeof input.human_check_token === "string" ? input.human_check_token : undefined;
  const result = await deps.humanCheck.verify(token, clientIpOf(request));
  if (result === "failed") {
    throw validationFailed([
      token
        ? { field: "human_check_token", reason: "human_check_failed", message: "did not pass" }
        : { field: "human_check_token", reason: "required", message: "is required" },
    ]);
  }
}
