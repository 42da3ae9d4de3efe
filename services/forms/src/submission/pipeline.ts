import { type FieldError, validationFailed } from "@newsroom/shared/errors";
import { clientIpOf } from "@newsroom/shared/http/request-context";
import type { Mailer } from "@newsroom/shared/mailer";
import type { Static, TObject } from "@sinclair/typebox";
import type { FormsDeps } from "../deps.ts";
import { readBody } from "../request/body.ts";
import {
  enforceClientLimit,
  guarded,
  json,
  type LIMITS,
  NO_STORE,
  requireMailer,
} from "../request/respond.ts";
import { deliverOnce } from "./deliver.ts";
import { checkSubmission, type Envelope, looksAutomated } from "./envelope.ts";

/** What a form's later steps know of one submission: the hooks' context, and the human check. */
export interface Submission<C> {
  context: C;
  /** Whether a human check token was sent and passed (it is never run for a dropped bot). */
  human: boolean;
}

/** One website form: its fields and what its email batch is. */
export interface FormSpec<S extends TObject, C = undefined> {
  /** The route's name in the idempotency record (`contact`, `careers`, ...). */
  route: string;
  /** The body's schema (fields and envelope): the source of every field rule. */
  schema: S;
  /** Sends to FORMS_TEAM_EMAIL, so that address must be configured too. */
  team: boolean;
  /**
   * Verifies `human_check_token`: `true` requires it to pass (the mapping call); `"optional"`
   * checks it only when one is sent, and a pass is handed on as `human` (single opt-in).
   */
  humanCheck: boolean | "optional";
  /** The per-client limit the form counts against (default `forms`). */
  limit?: keyof typeof LIMITS;
  /** The email batch. Throws MailDeliveryError when the provider refuses. */
  deliver(input: Static<S> & Envelope, mailer: Mailer, submission: Submission<C>): Promise<void>;
  /** A form's own steps in the common order; without them, `C` is undefined. */
  hooks?: FormHooks<C>;
}

/**
 * The extension points of the pipeline, in the order it calls them. Each is one step a form
 * needs beyond the common ones (the organization newsletter: its allowed origins, its answers
 * to a page without JavaScript).
 */
export interface FormHooks<C> {
  /** Headers of every answer, errors included (beside `Cache-Control: no-store`). */
  headers?: Record<string, string>;
  /**
   * After the client limit, before the body is read: whether this request may post here at all.
   * Throws to refuse; may add to `headers` (CORS); returns the context of the later hooks.
   */
  admit(request: Request, headers: Record<string, string>): Promise<C>;
  /**
   * With the body read, before validation: an answer that ends the submission at once, or the
   * context for the rest and the field errors the schema cannot see (each field named once).
   */
  screen?(
    fields: Record<string, unknown>,
    context: C,
  ): Response | { context: C; errors: FieldError[] };
  /** The answer to invalid fields, when not the 422 validation_failed naming them. */
  invalid?(errors: FieldError[], context: C): Response | undefined;
  /** The answer to an accepted submission (default: the accepted record). */
  accepted?(submission: Submission<C>): Response;
}

/**
 * The accepted-submission record: byte for byte the same for a sent, repeated, throttled or
 * silently dropped submission, so the answer tells nothing about what happened after it.
 */
export function accepted(): Response {
  return json({ status: "accepted" }, 202);
}

/**
 * The processing order of every website form: configured, rate limit per client, the form's
 * admission (hooks), body, validation (every bad field at once), bot screening (dropped with the
 * answer of a real submission), human check, then one idempotent email batch keyed by
 * `submission_id`.
 */
export function submitForm<S extends TObject, C = undefined>(
  deps: FormsDeps,
  request: Request,
  spec: FormSpec<S, C>,
): Promise<Response> {
  const hooks = spec.hooks;
  const headers: Record<string, string> = { ...NO_STORE, ...hooks?.headers };
  return guarded(request, headers, async () => {
    const mailer = requireMailer(deps, { team: spec.team });
    await enforceClientLimit(deps, request, spec.limit ?? "forms");
    // Without hooks there is no context: `C` is undefined then (the default).
    let context = hooks ? await hooks.admit(request, headers) : (undefined as C);
    const body = await readBody(request);
    const extra: FieldError[] = [];
    const screened = hooks?.screen?.(body.fields, context);
    if (screened instanceof Response) return screened;
    if (screened) {
      context = screened.context;
      extra.push(...screened.errors);
    }
    const invalid = (errors: FieldError[]) => {
      const answer = hooks?.invalid?.(errors, context);
      if (answer) return answer;
      throw validationFailed(errors);
    };
    const result = checkSubmission(spec.schema, body.fields, body.kind);
    const errors = "errors" in result ? [...result.errors] : [];
    for (const error of extra) {
      if (!errors.some((known) => known.field === error.field)) errors.push(error);
    }
    if (errors.length > 0 || !("value" in result)) return invalid(errors);
    const input = result.value as Static<S> & Envelope;
    // A form with an optional envelope (OptionalEnvelopeFields) may come without an id.
    const submissionId = (input.submission_id as string | undefined) ?? crypto.randomUUID();
    const answer = (human: boolean) =>
      hooks?.accepted ? hooks.accepted({ context, human }) : accepted();
    if (looksAutomated(input, deps.now())) return answer(false);
    const token = (input as { human_check_token?: unknown }).human_check_token;
    const check = await humanCheckOf(deps, request, spec.humanCheck, token);
    if ("errors" in check) return invalid(check.errors);
    await deliverOnce(deps.db, submissionId, spec.route, deps.now, () =>
      spec.deliver(input, mailer, { context, human: check.human }),
    );
    return answer(check.human);
  });
}

/**
 * The human check of a submission: required (an error naming `human_check_token` unless it
 * passes or the check is off in this environment), optional (checked only when a token is
 * sent), or none.
 */
async function humanCheckOf(
  deps: FormsDeps,
  request: Request,
  mode: FormSpec<TObject>["humanCheck"],
  value: unknown,
): Promise<{ human: boolean } | { errors: FieldError[] }> {
  const token = typeof value === "string" ? value : undefined;
  if (!mode || (mode === "optional" && !token)) return { human: false };
  const result = await deps.humanCheck.verify(token, clientIpOf(request));
  if (result !== "failed") return { human: result === "passed" };
  return {
    errors: [
      token
        ? { field: "human_check_token", reason: "human_check_failed", message: "did not pass" }
        : { field: "human_check_token", reason: "required", message: "is required" },
    ],
  };
}
