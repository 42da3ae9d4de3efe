import { type Static, Type as T } from "@sinclair/typebox";

/**
 * The commands on CMS connections (a client's WordPress or Ghost the published stories are
 * written into), as the webhooks service's internal API takes and answers them: the workspace's
 * internal API and pages send the same bodies (one validator). The create body is checked field
 * by field by the webhooks service, which answers 422 `validation_failed` naming each field.
 */
export const CMS_KINDS = ["wordpress", "ghost"] as const;
export type CmsKind = (typeof CMS_KINDS)[number];
export const CMS_UNPUBLISH_MODES = ["draft", "trash"] as const;
export const CMS_CONNECTION_STATUSES = ["unchecked", "working", "failing"] as const;
/** An organization may have this many CMS connections at most. */
export const MAX_CMS_CONNECTIONS_PER_ORGANIZATION = 10;

const Field = (maxLength: number) => T.Optional(T.String({ maxLength }));

export const CmsConnectionCreateIn = T.Object({
  kind: T.String({ maxLength: 20 }),
  url: Field(2048),
  /** WordPress: the user the posts are written as. */
  username: Field(200),
  /** WordPress: an application password of that user (spaces as WordPress shows them are fine). */
  application_password: Field(200),
  /** Ghost: the Admin API key of a custom integration, `{id}:{secret}`. */
  admin_api_key: Field(300),
  unpublish_mode: T.Optional(T.Union(CMS_UNPUBLISH_MODES.map((m) => T.Literal(m)))),
  enabled: T.Optional(T.Boolean()),
});
export type CmsConnectionCreateIn = Static<typeof CmsConnectionCreateIn>;

export const CmsConnectionUpdateIn = T.Object({
  enabled: T.Optional(T.Boolean()),
  unpublish_mode: T.Optional(T.Union(CMS_UNPUBLISH_MODES.map((m) => T.Literal(m)))),
});
export type CmsConnectionUpdateIn = Static<typeof CmsConnectionUpdateIn>;

const DateTime = T.String({ format: "date-time" });
const Nullable = <S extends Parameters<typeof T.Union>[0][number]>(schema: S) =>
  T.Union([schema, T.Null()]);

/** A connection as every answer shows it: never its credential. */
export const CmsConnectionOut = T.Object({
  object: T.Literal("cms_connection"),
  id: T.String(),
  kind: T.Union(CMS_KINDS.map((k) => T.Literal(k))),
  url: T.String(),
  status: T.Union(CMS_CONNECTION_STATUSES.map((s) => T.Literal(s))),
  enabled: T.Boolean(),
  unpublish_mode: T.Union(CMS_UNPUBLISH_MODES.map((m) => T.Literal(m))),
  /** The last check's or write's problem in plain words; null while it works. */
  last_error: Nullable(T.String()),
  last_error_at: Nullable(DateTime),
  consecutive_failures: T.Integer(),
  created_at: DateTime,
  updated_at: DateTime,
});
export type CmsConnectionOut = Static<typeof CmsConnectionOut>;

/** What "Check connection" found, in plain words. */
export const CmsConnectionCheckOut = T.Object({
  object: T.Literal("cms_connection_check"),
  ok: T.Boolean(),
  problem: Nullable(
    T.Union([
      T.Literal("unreachable"),
      T.Literal("refused_credentials"),
      T.Literal("missing_capability"),
      T.Literal("unexpected_answer"),
    ]),
  ),
  message: T.String(),
  connection: CmsConnectionOut,
});
export type CmsConnectionCheckOut = Static<typeof CmsConnectionCheckOut>;

/** One story's write into one connection: where it stands. */
export const CmsWriteOut = T.Object({
  object: T.Literal("cms_write"),
  id: T.String(),
  connection_id: T.String(),
  kind: T.Union(CMS_KINDS.map((k) => T.Literal(k))),
  url: T.String(),
  story_id: T.String(),
  action: T.Union([T.Literal("publish"), T.Literal("unpublish")]),
  status: T.Union([T.Literal("pending"), T.Literal("done"), T.Literal("failed")]),
  performed: Nullable(T.String()),
  attempts: T.Integer(),
  last_error: Nullable(T.String()),
  next_attempt_at: Nullable(DateTime),
  remote_url: Nullable(T.String()),
  created_at: DateTime,
  done_at: Nullable(DateTime),
});
export type CmsWriteOut = Static<typeof CmsWriteOut>;
