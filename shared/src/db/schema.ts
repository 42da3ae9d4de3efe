import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import {
  OPERATIONAL_EVENT_TYPES,
  STATUS_EVENT_TYPES,
  SUBSCRIBABLE_EVENT_TYPES,
  type SubscribableEventType,
  WEBHOOK_EVENT_TYPES,
} from "../events.ts";

/**
 * The one schema of the service: PostgreSQL in production, PGlite embedded and in fast tests.
 * Every tenant table carries `organization_id`; every store query filters on it first.
 */

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp("updated_at", { withTimezone: true }).notNull().defaultNow();
const tstz = (name: string) => timestamp(name, { withTimezone: true });

/** Written by: workspace. Read by: client-api, forms, public-read, webhooks. */
export const organizations = pgTable("organizations", {
  id: uuid("id").primaryKey(),
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  /** Until the newsroom runs, the client API lists are empty. */
  newsroomRunning: boolean("newsroom_running").notNull().default(false),
  /** A sandbox organization holds synthetic data for `armk_test_` keys. */
  sandbox: boolean("sandbox").notNull().default(false),
  newsletterEnabled: boolean("newsletter_enabled").notNull().default(false),
  /** Website origins allowed to post to the organization's newsletter subscribe route. */
  newsletterOrigins: jsonb("newsletter_origins").$type<string[]>().notNull().default([]),
  /** The owner's switch: approvals through the API (OAuth access tokens) are answered. */
  apiApprovalsEnabled: boolean("api_approvals_enabled").notNull().default(false),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * Written by: the database (its triggers, fired by any service's write of the tables below; no
 * code writes it). Read by: client-api.
 * An organization's `data_version`, the sum of its rows' counts: moves forward in the same
 * transaction as every change that alters a client API answer (stories, versions, topics,
 * approval decisions, webhook endpoints, sites, hostnames, assets, the organization's row).
 * Cached answers are keyed by it. No row: 0.
 * A table of its own, not a column of `organizations`: every story transition moves it, and the
 * organization's row is what the foreign keys of the busiest tables (webhook deliveries and
 * attempts) check with a share lock on each insert; updated by each transition, that row made
 * each check meet the transition's lock and follow its chain of versions.
 * Several rows per organization (`shard`): a transaction moves the row of its connection's
 * server process, so two transactions of one organization on two connections do not wait for
 * each other's commit on one row.
 */
export const organizationDataVersions = pgTable(
  "organization_data_versions",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Which of the organization's rows: `pg_backend_pid() % 16` of the moving transaction. */
    shard: smallint("shard").notNull().default(0),
    dataVersion: bigint("data_version", { mode: "number" }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.shard] })],
);

/** Written by: workspace. Read by: client-api, forms, public-read, webhooks (a CMS post's canonical page). */
export const sites = pgTable("sites", {
  id: uuid("id").primaryKey(),
  organizationId: uuid("organization_id")
    .notNull()
    .references(() => organizations.id),
  /** The site slug of `/v1/public/sites/{site}`. */
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  publisher: text("publisher").notNull(),
  accent: text("accent").notNull().default("#1a73e8"),
  logoAssetId: uuid("logo_asset_id"),
  enabled: boolean("enabled").notNull().default(false),
  /** Indexable by search engines. */
  live: boolean("live").notNull().default(false),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** Written by: workspace. Read by: client-api, forms, public-read, webhooks (a CMS post's canonical page). */
export const hostnames = pgTable("hostnames", {
  id: uuid("id").primaryKey(),
  organizationId: uuid("organization_id")
    .notNull()
    .references(() => organizations.id),
  siteId: uuid("site_id")
    .notNull()
    .references(() => sites.id),
  /** Stored lower-case; compared case-insensitively. */
  hostname: text("hostname").notNull().unique(),
  status: text("status", { enum: ["pending", "active"] })
    .notNull()
    .default("pending"),
  activatedAt: tstz("activated_at"),
  createdAt: createdAt(),
});

/** Written by: workspace. Read by: client-api. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    environment: text("environment", { enum: ["live", "test"] }).notNull(),
    /** What the organization calls the key (up to 100 characters), shown wherever keys are listed. */
    name: text("name"),
    /** SHA-256 of the whole key, hex. The key itself is never stored. */
    keyHash: text("key_hash").notNull().unique(),
    prefix: text("prefix").notNull(),
    lastFour: text("last_four").notNull(),
    scopes: jsonb("scopes").$type<string[]>().notNull(),
    expiresAt: tstz("expires_at").notNull(),
    revokedAt: tstz("revoked_at"),
    /**
     * Retired: neither read nor written, `api_key_usage` holds a key's last use. Kept for one
     * release because a client-api replica of the previous release reads it on every request
     * while a rolling update runs; a later migration drops it.
     */
    retiredLastUsedAt: tstz("last_used_at"),
    createdAt: createdAt(),
  },
  (table) => [index("api_keys_org_idx").on(table.organizationId)],
);

/**
 * Written by: client-api. Read by: workspace.
 * When each key was last used: every client-api replica moves it forward in batches, never back.
 * A row exists once a key has been used.
 */
export const apiKeyUsage = pgTable("api_key_usage", {
  keyId: uuid("key_id")
    .primaryKey()
    .references(() => apiKeys.id, { onDelete: "cascade" }),
  organizationId: uuid("organization_id")
    .notNull()
    .references(() => organizations.id),
  lastUsedAt: tstz("last_used_at").notNull(),
});

/**
 * Written by: workspace (owner actions, and an endpoint the webhooks service disabled, from
 * its event). Read by: no other service.
 * Creation and revocation of keys and endpoints, and other owner actions.
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    action: text("action").notNull(),
    subjectId: uuid("subject_id"),
    actor: text("actor").notNull(),
    createdAt: createdAt(),
  },
  // The audit page pages newest first by (created_at, id) within one organization.
  (table) => [
    index("audit_events_org_created_idx").on(table.organizationId, table.createdAt, table.id),
  ],
);

export const STORY_TYPES = [
  "insight",
  "press_release",
  "announcement",
  "in_the_news",
  "event",
  "video",
] as const;
export type StoryType = (typeof STORY_TYPES)[number];

export const STORY_STATUSES = [
  "draft",
  "ai_generated",
  "review_required",
  "approved",
  "scheduled",
  "publishing",
  "published",
  "failed",
  "rejected",
  "unpublished",
  "archived",
] as const;
export type StoryStatus = (typeof STORY_STATUSES)[number];

/** Written by: workspace. Read by: client-api, forms (issues), public-read, webhooks. */
export const stories = pgTable(
  "stories",
  {
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    type: text("type", { enum: STORY_TYPES }).notNull(),
    slug: text("slug").notNull(),
    status: text("status", { enum: STORY_STATUSES }).notNull().default("draft"),
    /** Number of the current version; null before the first version. */
    currentVersion: integer("current_version"),
    /** The version a person approved; publishing needs it to equal the current version. */
    approvedVersion: integer("approved_version"),
    externalUrl: text("external_url"),
    featured: boolean("featured").notNull().default(false),
    /** Made-up data (the sandbox's): no person decided on it, and no decision is recorded. */
    synthetic: boolean("synthetic").notNull().default(false),
    publishedAt: tstz("published_at"),
    scheduledAt: tstz("scheduled_at"),
    /**
     * When the scheduler publishes a scheduled story; kept once it published it or gave up (the
     * time it was due), cleared by unschedule, a new version and any other transition.
     */
    publishAt: tstz("publish_at"),
    /** The person who scheduled it (null: the operator), told when publication fails. */
    scheduledBy: uuid("scheduled_by"),
    /** Why the scheduler left the story in `failed`. */
    publishFailure: text("publish_failure"),
    /** The `sequence` of the story's last event: raised by one in each transition that writes one. */
    eventSequence: integer("event_sequence").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex("stories_org_slug_idx").on(table.organizationId, table.slug),
    index("stories_org_updated_idx").on(table.organizationId, table.updatedAt, table.id),
    // A list of one status newest change first (the approval queue) without scanning the rest.
    index("stories_org_status_updated_idx").on(
      table.organizationId,
      table.status,
      table.updatedAt,
      table.id,
    ),
    index("stories_org_status_published_idx").on(
      table.organizationId,
      table.status,
      table.publishedAt,
    ),
    // The scheduler's read across organizations: the next due scheduled story, a few rows at most.
    index("stories_scheduled_publish_at_idx")
      .on(table.publishAt)
      .where(sql`${table.status} = 'scheduled'`),
  ],
);

/** Written by: workspace. Read by: client-api, forms, public-read, webhooks. */
export const storyVersions = pgTable(
  "story_versions",
  {
    id: uuid("id").primaryKey(),
    storyId: uuid("story_id")
      .notNull()
      .references(() => stories.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    title: text("title"),
    summary: text("summary"),
    /** Structured body: an array of blocks such as `{ type: "paragraph", text }`. */
    body: jsonb("body").$type<Record<string, unknown>[]>().notNull().default([]),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex("story_versions_story_version_idx").on(table.storyId, table.version)],
);

/**
 * Written by: workspace. Read by: public-read (the preview page).
 * Links are made and revoked in the workspace, which also records the openings public-read
 * announces as `preview_link.opened`. An embargoed story's preview link: only the SHA-256 of its token is kept, the token itself is
 * shown once. It records when it was opened and how often, nothing about who opened it.
 */
export const previewLinks = pgTable(
  "preview_links",
  {
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    storyId: uuid("story_id")
      .notNull()
      .references(() => stories.id, { onDelete: "cascade" }),
    /** Who the link is for, such as a journalist's outlet (up to 100 characters). */
    label: text("label").notNull(),
    /** SHA-256 of the token, hex. */
    tokenHash: text("token_hash").notNull().unique(),
    expiresAt: tstz("expires_at").notNull(),
    /** `admin` (the internal API) or `person:<id>`. */
    createdBy: text("created_by").notNull(),
    revokedAt: tstz("revoked_at"),
    firstOpenedAt: tstz("first_opened_at"),
    lastOpenedAt: tstz("last_opened_at"),
    openedCount: integer("opened_count").notNull().default(0),
    createdAt: createdAt(),
  },
  (table) => [index("preview_links_org_story_idx").on(table.organizationId, table.storyId)],
);

/** Written by: workspace. Read by: client-api, public-read, webhooks. */
export const topics = pgTable(
  "topics",
  {
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex("topics_org_slug_idx").on(table.organizationId, table.slug)],
);

/** Written by: workspace. Read by: client-api, public-read, webhooks. */
export const storyTopics = pgTable(
  "story_topics",
  {
    storyId: uuid("story_id")
      .notNull()
      .references(() => stories.id, { onDelete: "cascade" }),
    topicId: uuid("topic_id")
      .notNull()
      .references(() => topics.id, { onDelete: "cascade" }),
  },
  (table) => [
    primaryKey({ columns: [table.storyId, table.topicId] }),
    index("story_topics_topic_idx").on(table.topicId),
  ],
);

/** Written by: workspace (the demo data). Read by: public-read. */
export const people = pgTable("people", {
  id: uuid("id").primaryKey(),
  organizationId: uuid("organization_id")
    .notNull()
    .references(() => organizations.id),
  name: text("name").notNull(),
  role: text("role"),
  createdAt: createdAt(),
});

/** Written by: workspace (the demo data). Read by: public-read. */
export const storyPeople = pgTable(
  "story_people",
  {
    storyId: uuid("story_id")
      .notNull()
      .references(() => stories.id, { onDelete: "cascade" }),
    personId: uuid("person_id")
      .notNull()
      .references(() => people.id, { onDelete: "cascade" }),
    position: integer("position").notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.storyId, table.personId] })],
);

/**
 * Written by: workspace (uploads, clearing, the demo data). Read by: client-api, forms (uncleared
 * URLs kept out of newsletters), public-read, webhooks (cleared images written into a CMS).
 * Images and files. Only assets cleared for publication may appear on public routes. An uploaded
 * image has its type, size and checksum recorded and its bytes in `asset_variants`; `url` is then
 * the service-relative address of its largest public variant.
 */
export const assets = pgTable("assets", {
  id: uuid("id").primaryKey(),
  organizationId: uuid("organization_id")
    .notNull()
    .references(() => organizations.id),
  url: text("url").notNull(),
  alt: text("alt").notNull().default(""),
  kind: text("kind", { enum: ["image", "video", "document", "logo"] })
    .notNull()
    .default("image"),
  cleared: boolean("cleared").notNull().default(false),
  /** The sniffed type of an uploaded file (never the name's); null for an asset known by URL. */
  contentType: text("content_type"),
  width: integer("width"),
  height: integer("height"),
  /** The uploaded file's size in bytes. */
  bytes: integer("bytes"),
  credit: text("credit"),
  rightsHolder: text("rights_holder"),
  /** SHA-256 of the uploaded bytes, hex. */
  sha256: text("sha256"),
  /** Who uploaded it: `admin` (the internal API) or `person:<id>`. */
  uploadedBy: text("uploaded_by"),
  clearedBy: text("cleared_by"),
  clearedAt: tstz("cleared_at"),
  createdAt: createdAt(),
});

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
});

/**
 * Written by: workspace. Read by: public-read (the variants of cleared assets), webhooks (uploaded into a CMS).
 * The stored bytes of an uploaded image: resized WebP variants and the original format
 * re-encoded, every one without metadata. `name` (`{sha256 prefix}-{width}.{ext}`, hashed over
 * the variant's own bytes) is its public address under `/assets/`, so one name is one content.
 */
export const assetVariants = pgTable(
  "asset_variants",
  {
    assetId: uuid("asset_id")
      .notNull()
      .references(() => assets.id, { onDelete: "cascade" }),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    name: text("name").notNull(),
    contentType: text("content_type").notNull(),
    width: integer("width").notNull(),
    height: integer("height").notNull(),
    bytes: integer("bytes").notNull(),
    data: bytea("data").notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.assetId, table.name] }),
    index("asset_variants_name_idx").on(table.name),
  ],
);

/** Written by: workspace (the demo data). Read by: public-read. */
export const storyAssets = pgTable(
  "story_assets",
  {
    storyId: uuid("story_id")
      .notNull()
      .references(() => stories.id, { onDelete: "cascade" }),
    assetId: uuid("asset_id")
      .notNull()
      .references(() => assets.id, { onDelete: "cascade" }),
    position: integer("position").notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.storyId, table.assetId] })],
);

/** Written by: workspace (the demo data). Read by: public-read. */
export const relatedStories = pgTable(
  "related_stories",
  {
    storyId: uuid("story_id")
      .notNull()
      .references(() => stories.id, { onDelete: "cascade" }),
    relatedStoryId: uuid("related_story_id")
      .notNull()
      .references(() => stories.id, { onDelete: "cascade" }),
    position: integer("position").notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.storyId, table.relatedStoryId] })],
);

/**
 * Written by: workspace. Read by: no other service.
 * People who sign in to the workspace web app: one email address each, stored lower-cased.
 * (Not `people`: those are the people named in stories.)
 */
export const workspacePeople = pgTable("workspace_people", {
  id: uuid("id").primaryKey(),
  email: text("email").notNull().unique(),
  createdAt: createdAt(),
});

export const MEMBER_ROLES = ["owner", "admin", "approver", "editor", "viewer"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/**
 * Written by: workspace. Read by: no other service.
 * A person's one role in one organization.
 */
export const workspaceMemberships = pgTable(
  "workspace_memberships",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    personId: uuid("person_id")
      .notNull()
      .references(() => workspacePeople.id, { onDelete: "cascade" }),
    role: text("role", { enum: MEMBER_ROLES }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.personId] }),
    index("workspace_memberships_person_idx").on(table.personId),
  ],
);

/**
 * Written by: workspace. Read by: no other service.
 * The one live sign-in code of a person (a new one replaces it). Only an HMAC of the code is
 * kept; it is deleted when used or found expired. Wrong tries are counted in the rate-limit store,
 * not here (a write on a wrong code would tell by its time that a code was waiting):
 * `failed_attempts` is no longer written.
 */
export const workspaceSignInCodes = pgTable("workspace_sign_in_codes", {
  personId: uuid("person_id")
    .primaryKey()
    .references(() => workspacePeople.id, { onDelete: "cascade" }),
  codeHash: text("code_hash").notNull(),
  failedAttempts: integer("failed_attempts").notNull().default(0),
  expiresAt: tstz("expires_at").notNull(),
  createdAt: createdAt(),
});

/**
 * Written by: workspace. Read by: no other service.
 * Signed-in sessions of the workspace web app. Only the SHA-256 of the cookie's token is kept.
 * `fresh_at` is when the person last proved a sign-in (code or single sign-on).
 */
export const workspaceSessions = pgTable(
  "workspace_sessions",
  {
    id: uuid("id").primaryKey(),
    personId: uuid("person_id")
      .notNull()
      .references(() => workspacePeople.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: createdAt(),
    lastSeenAt: tstz("last_seen_at").notNull(),
    /** The absolute end of the session, whatever its use. */
    expiresAt: tstz("expires_at").notNull(),
    freshAt: tstz("fresh_at").notNull(),
    /**
     * Set when single sign-on opened the session: the organization whose provider vouched for
     * the person, the only one the session reaches until an emailed code clears it.
     */
    ssoOrganizationId: uuid("sso_organization_id").references(() => organizations.id, {
      onDelete: "cascade",
    }),
  },
  (table) => [index("workspace_sessions_person_idx").on(table.personId)],
);

/**
 * Written by: workspace. Read by: no other service.
 * An organization's single sign-on (OpenID Connect): its provider, the client registered there,
 * and the email domains whose people may sign in through it. The client secret is sealed with
 * AES-256-GCM (base64 of iv, tag and ciphertext); only its last four characters are shown.
 */
export const organizationSso = pgTable("organization_sso", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id),
  issuer: text("issuer").notNull(),
  clientId: text("client_id").notNull(),
  clientSecretCiphertext: text("client_secret_ciphertext").notNull(),
  clientSecretHint: text("client_secret_hint").notNull(),
  /** Lower-cased domains, e.g. ["example.com"]: the address's domain must be one of them. */
  allowedDomains: jsonb("allowed_domains").$type<string[]>().notNull().default([]),
  enabled: boolean("enabled").notNull().default(false),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * Written by: workspace. Read by: no other service.
 * An email domain an organization proved it controls (a DNS TXT record holding its verification
 * token): only then may its single sign-on sign in addresses there. One organization per domain.
 */
export const ssoVerifiedDomains = pgTable(
  "sso_verified_domains",
  {
    domain: text("domain").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    verifiedAt: tstz("verified_at").notNull(),
  },
  (table) => [index("sso_verified_domains_organization_idx").on(table.organizationId)],
);

/**
 * Written by: workspace. Read by: no other service.
 * A single sign-on under way, from the redirect to the provider to its callback: the browser's
 * cookie holds a token whose SHA-256 is the key. Deleted when the callback uses it (a replayed
 * callback finds nothing) or after ten minutes.
 */
export const workspaceSsoAttempts = pgTable("workspace_sso_attempts", {
  tokenHash: text("token_hash").primaryKey(),
  organizationId: uuid("organization_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" }),
  state: text("state").notNull(),
  nonce: text("nonce").notNull(),
  codeVerifier: text("code_verifier").notNull(),
  expiresAt: tstz("expires_at").notNull(),
  createdAt: createdAt(),
});

/** Written by: workspace. Read by: client-api. */
export const approvalDecisions = pgTable(
  "approval_decisions",
  {
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    storyId: uuid("story_id")
      .notNull()
      .references(() => stories.id, { onDelete: "cascade" }),
    version: integer("version"),
    decision: text("decision", { enum: ["approved", "rejected"] }).notNull(),
    actorType: text("actor_type").notNull(),
    actorRole: text("actor_role").notNull(),
    /** The person who decided in the web app; internal only, never on the client API. */
    personId: uuid("person_id").references(() => workspacePeople.id, { onDelete: "set null" }),
    /** The application a person decided through (OAuth); internal only, null in the web app. */
    oauthClientId: uuid("oauth_client_id").references(() => oauthClients.id, {
      onDelete: "set null",
    }),
    note: text("note"),
    decidedAt: tstz("decided_at").notNull().defaultNow(),
  },
  (table) => [index("approval_decisions_story_idx").on(table.storyId, table.decidedAt)],
);

/**
 * Written by: webhooks (its internal API takes the workspace's endpoint commands; the worker
 * counts failures and disables). Read by: client-api, workspace (whose organization an
 * endpoint named by id is, before it calls webhooks).
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    url: text("url").notNull(),
    /** What the organization calls the endpoint (up to 100 characters). */
    name: text("name"),
    events: jsonb("events").$type<SubscribableEventType[]>().notNull(),
    status: text("status", { enum: ["enabled", "disabled"] })
      .notNull()
      .default("enabled"),
    disabledReason: text("disabled_reason", { enum: ["failing", "by_client", "by_armage"] }),
    /** `whsec_...` sealed with AES-256-GCM: base64 of iv, tag and ciphertext. */
    secretCiphertext: text("secret_ciphertext").notNull(),
    secretHint: text("secret_hint").notNull(),
    /**
     * The secret a rotation replaced, sealed like the current one: requests are signed with both
     * until `previous_secret_expires_at` (24 hours after the rotation).
     */
    previousSecretCiphertext: text("previous_secret_ciphertext"),
    previousSecretExpiresAt: tstz("previous_secret_expires_at"),
    /**
     * Set in the transaction that disables the endpoint for failing: the id of the
     * `webhook_endpoint.disabled` event owed. Published after commit (and again by the periodic
     * pass until it is), then cleared.
     */
    disabledAnnouncementId: uuid("disabled_announcement_id"),
    /** Failed deliveries in a row; three disable the endpoint, a success resets it. */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    /** Failed attempts in a row (every delivery's), for the failing alerts; a 2xx resets it. */
    failedAttemptsInARow: integer("failed_attempts_in_a_row").notNull().default(0),
    /** When the current run of failed attempts began (its alerts' episode); null after a 2xx. */
    failingSince: tstz("failing_since"),
    /** The highest failing alert (50, 70 or 90% of the disable threshold) of this run; 0 if none. */
    failureAlertPercent: integer("failure_alert_percent").notNull().default(0),
    /**
     * When the latest 2xx of any of its deliveries was answered. A failed attempt sent before it
     * belongs to the run that 2xx ended: it counts in no run and raises no alert.
     */
    lastSuccessAt: tstz("last_success_at"),
    /** Topic slugs: only events of stories with one of them are delivered. Null: every story. */
    topics: jsonb("topics").$type<string[]>(),
    /** How requests authenticate beyond the signature; null for the signature alone. */
    authType: text("auth_type", { enum: ["bearer", "headers", "oauth2_client_credentials"] }),
    /** The `auth` of the create command as JSON, sealed like the secret: never readable. */
    authCiphertext: text("auth_ciphertext"),
    /** Deliveries per second at most, across every replica; null for no limit of its own. */
    rateLimitPerSecond: integer("rate_limit_per_second"),
    /** `story`: a story's events reach the endpoint one at a time, in the order they happened. */
    ordering: text("ordering", { enum: ["none", "story"] })
      .notNull()
      .default("none"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index("webhook_endpoints_org_idx").on(table.organizationId, table.createdAt)],
);

/**
 * Written by: workspace (the change, the relay). Read by: webhooks (the reconciler, and the
 * event's fields when it fans one out).
 * Events written in the same transaction as the story change; the relay publishes them.
 */
export const outboxEvents = pgTable(
  "outbox_events",
  {
    /** The event id: JetStream `Nats-Msg-Id` and the `webhook-id` header. */
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    type: text("type", { enum: WEBHOOK_EVENT_TYPES }).notNull(),
    storyId: uuid("story_id"),
    /** The story's event counter after this event (per story, strictly increasing); null before it existed. */
    sequence: integer("sequence"),
    /** The story's status before the transition that wrote this event. */
    previousStatus: text("previous_status", { enum: STORY_STATUSES }),
    createdAt: createdAt(),
    /** Set by the relay once the bus accepted the event. */
    publishedAt: tstz("published_at"),
    /**
     * The W3C `traceparent` of the transition that wrote the event, when it was traced: the
     * relay's publish, the fan-out and each delivery attempt join that trace. No value beyond ids.
     */
    traceParent: text("trace_parent"),
    /**
     * No longer written: the webhooks service keeps its own record (`webhook_fanned_out_events`),
     * which the upgrade filled from this column. To be dropped by the workspace.
     */
    fannedOutAt: tstz("fanned_out_at"),
  },
  (table) => [
    index("outbox_unpublished_idx").on(table.createdAt).where(sql`published_at is null`),
    // The webhooks reconciler reads the recent events in order of creation.
    index("outbox_created_idx").on(table.createdAt),
  ],
);

/**
 * Written by: webhooks. Read by: no other service.
 * Each event the webhooks service has fanned out (its deliveries written), recorded in the same
 * transaction as the deliveries: a redelivered message finds it and creates nothing, and the
 * reconciler fans out the outbox events that have none.
 */
export const webhookFannedOutEvents = pgTable("webhook_fanned_out_events", {
  /** The outbox event's id (the bus message's id). */
  eventId: uuid("event_id").primaryKey(),
  fannedOutAt: tstz("fanned_out_at").notNull(),
});

/**
 * Written by: webhooks (fan-out, delivery, and the resends and recoveries its internal API takes).
 * Read by: client-api, workspace (whose organization a delivery named by id is).
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    eventId: uuid("event_id").notNull(),
    eventType: text("event_type", { enum: SUBSCRIBABLE_EVENT_TYPES }).notNull(),
    storyId: uuid("story_id"),
    /** When the story changed: the event's `created_at`. */
    eventCreatedAt: tstz("event_created_at").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    /** How long the last attempt took, from sending to the answer or the failure. */
    lastDurationMs: integer("last_duration_ms"),
    lastError: text("last_error"),
    nextAttemptAt: tstz("next_attempt_at"),
    /** A worker's claim on the row until this time, so a crashed worker's claim lapses. */
    lockedUntil: tstz("locked_until"),
    createdAt: createdAt(),
    deliveredAt: tstz("delivered_at"),
    /** The W3C `traceparent` of the fan-out that wrote the delivery: its attempts join that trace. */
    traceParent: text("trace_parent"),
    /**
     * The event's place in its story (its `sequence`), set only for an endpoint that delivers in
     * story order: the delivery waits while one of the same endpoint and story with a lower
     * place is pending. Null: it waits for nothing.
     */
    storyOrder: integer("story_order"),
  },
  (table) => [
    uniqueIndex("webhook_deliveries_endpoint_event_idx").on(table.endpointId, table.eventId),
    index("webhook_deliveries_org_created_idx").on(table.organizationId, table.createdAt, table.id),
    // A claim reads each endpoint's next due rows in order, and counts its attempts in flight,
    // without reading the rest of its backlog.
    index("webhook_deliveries_endpoint_due_idx")
      .on(table.endpointId, table.nextAttemptAt, table.id)
      .where(sql`status = 'pending'`),
    // A claim asks, for a delivery in story order, whether an earlier one of its story is pending.
    index("webhook_deliveries_story_order_idx")
      .on(table.endpointId, table.storyId, table.storyOrder)
      .where(sql`status = 'pending' and story_order is not null`),
  ],
);

/**
 * Written by: webhooks. Read by: no other service.
 * Which dispatcher holds an endpoint's deliveries: one process at a time claims an endpoint's
 * rows, and holds its per-endpoint cap on requests in flight itself, so a freed place goes to
 * the endpoint's next claimed delivery without a database round trip. Taken by a claim when free
 * or lapsed, renewed with the claims it holds, handed after a tenure to a process that wants
 * it, given back when the process holds nothing of the endpoint; a dead process's lease lapses
 * as its claims do.
 */
export const webhookEndpointLeases = pgTable("webhook_endpoint_leases", {
  endpointId: uuid("endpoint_id")
    .primaryKey()
    .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
  /** The dispatcher process that holds it (an id it draws at its start). */
  workerId: uuid("worker_id").notNull(),
  /** Renewed while the process holds deliveries of the endpoint; lapses when it dies. */
  leasedUntil: tstz("leased_until").notNull(),
  /**
   * The process that found the endpoint's deliveries due and the lease taken: the holder hands
   * the lease to it after its tenure, so that replicas take turns only when another wants one.
   */
  wantedBy: uuid("wanted_by"),
});

/**
 * Written by: webhooks. Read by: no other service.
 * The status page's events this service fanned out (`status.incident_updated`), as the bus
 * carried them: written in the fan-out transaction, read to build each delivery's body (at
 * every attempt and resend). `data` is the event's `{ incident, update }`.
 */
export const webhookStatusEvents = pgTable("webhook_status_events", {
  /** The event's id: the deliveries' `event_id` and `webhook-id`. */
  id: uuid("id").primaryKey(),
  type: text("type", { enum: STATUS_EVENT_TYPES }).notNull(),
  data: jsonb("data").$type<Record<string, unknown>>().notNull(),
  /** The event's `created_at`: when the update was made. */
  createdAt: tstz("created_at").notNull(),
  recordedAt: tstz("recorded_at").notNull().defaultNow(),
});

/**
 * Written by: webhooks. Read by: no other service.
 * The alerts raised about an endpoint (failing at a threshold, disabled, a delivery exhausted),
 * written in the transaction that recorded the failed attempt. The unique key holds each alert
 * to once per endpoint, kind, threshold and run of failures (`episode`), whatever the number of
 * replicas or restarts. The row is the operational event: its id is the event's id, `data` its
 * body's data. `announced_at` is null while its bus event (the owners' email) is owed.
 */
export const webhookAlerts = pgTable(
  "webhook_alerts",
  {
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    /** No foreign key: the operational deliveries to other endpoints outlive a deleted endpoint. */
    endpointId: uuid("endpoint_id").notNull(),
    type: text("type", { enum: OPERATIONAL_EVENT_TYPES }).notNull(),
    /** The share of the disable threshold for `webhook_endpoint.failing`; 0 for the others. */
    threshold: integer("threshold").notNull().default(0),
    /** When the run of failed attempts the alert belongs to began. */
    episode: tstz("episode").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    announcedAt: tstz("announced_at"),
  },
  (table) => [
    uniqueIndex("webhook_alerts_once_idx").on(
      table.endpointId,
      table.type,
      table.episode,
      table.threshold,
    ),
    index("webhook_alerts_endpoint_created_idx").on(table.endpointId, table.createdAt),
    index("webhook_alerts_owed_idx").on(table.createdAt).where(sql`announced_at is null`),
  ],
);

/**
 * Written by: webhooks. Read by: no other service.
 * Each attempt of a delivery, for the organization's people in the workspace (never in the
 * client API): written by the webhooks service with the delivery's update, shown to the
 * workspace through its internal API.
 * Holds the first 1 KiB of the receiver's answer, never the request's headers or secret. Rows
 * older than 30 days are deleted by the webhooks service's periodic job.
 */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    deliveryId: uuid("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    /** The attempt's number in its series (a resend starts a new series at 1). */
    attempt: integer("attempt").notNull(),
    at: tstz("at").notNull(),
    statusCode: integer("status_code"),
    durationMs: integer("duration_ms").notNull(),
    /** The first 1 KiB of the answer's body as text, invalid bytes replaced; null if none. */
    responseBody: text("response_body"),
    /** Why it failed (as `last_error`); null when delivered. */
    reason: text("reason"),
    /**
     * Logged before the request leaves, completed when it is answered: true until then. An
     * attempt whose sender died stays open until the delivery's next attempt closes it.
     */
    inFlight: boolean("in_flight").notNull().default(false),
  },
  (table) => [
    index("webhook_attempts_delivery_idx").on(table.deliveryId, table.at),
    index("webhook_attempts_at_idx").on(table.at),
  ],
);

/**
 * Written by: forms. Read by: no other service (the digest send is the forms service's).
 * The service's own weekly digest: addresses that confirmed, and pending ones.
 */
export const digestSubscriptions = pgTable("digest_subscriptions", {
  id: uuid("id").primaryKey(),
  email: text("email").notNull().unique(),
  status: text("status", { enum: ["pending", "subscribed", "unsubscribed"] })
    .notNull()
    .default("pending"),
  createdAt: createdAt(),
  confirmedAt: tstz("confirmed_at"),
});

/**
 * Written by: forms. Read by: no other service.
 * Pending double opt-in confirmations for the digest (`list = 'digest'`), organization
 * newsletters (`list = 'org'`) and the status page's updates (`list = 'status'`). Only the
 * token's SHA-256 is kept; organization addresses are removed once confirmed.
 */
export const newsletterConfirmations = pgTable(
  "newsletter_confirmations",
  {
    id: uuid("id").primaryKey(),
    list: text("list", { enum: ["digest", "org", "status"] }).notNull(),
    organizationId: uuid("organization_id").references(() => organizations.id),
    email: text("email"),
    tokenHash: text("token_hash").notNull().unique(),
    redirect: text("redirect"),
    expiresAt: tstz("expires_at").notNull(),
    usedAt: tstz("used_at"),
    createdAt: createdAt(),
  },
  (table) => [index("newsletter_confirmations_email_idx").on(table.email, table.createdAt)],
);

/**
 * Written by: forms. Read by: no other service.
 * The status page's email subscribers: addresses that confirmed (double opt-in through
 * `newsletter_confirmations`, `list = 'status'`). Each incident update is emailed to every row;
 * unsubscribing deletes the row. The unsubscribe link is signed from the id, so no token is kept.
 */
export const statusSubscribers = pgTable("status_subscribers", {
  id: uuid("id").primaryKey(),
  email: text("email").notNull().unique(),
  confirmedAt: tstz("confirmed_at").notNull(),
  createdAt: createdAt(),
});

/**
 * Written by: forms. Read by: no other service.
 * Organization newsletter subscribers who confirmed; handed to the organization's digest.
 */
export const organizationSubscribers = pgTable(
  "organization_subscribers",
  {
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    /** SHA-256 of the lower-cased address: the address itself is not kept. */
    emailHash: text("email_hash").notNull(),
    subscribedAt: tstz("subscribed_at").notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("organization_subscribers_idx").on(table.organizationId, table.emailHash),
  ],
);

/**
 * Written by: forms. Read by: no other service.
 * The send-once records: the only trace a form leaves (its submission id, the answer given, and
 * when to forget it), and one record per digest or newsletter copy sent (a derived id).
 */
export const formSubmissions = pgTable("form_submissions", {
  submissionId: uuid("submission_id").primaryKey(),
  route: text("route").notNull(),
  status: text("status", { enum: ["sending", "sent"] }).notNull(),
  expiresAt: tstz("expires_at").notNull(),
  createdAt: createdAt(),
});

export const OAUTH_GRANT_TYPES = [
  "authorization_code",
  "urn:ietf:params:oauth:grant-type:device_code",
] as const;
export type OAuthGrantType = (typeof OAUTH_GRANT_TYPES)[number];

/**
 * Written by: workspace. Read by: no other service.
 * An application an organization's owners or admins registered for approvals through the API: a
 * public client (no secret), its exact redirect URIs and the grants it may use.
 */
export const oauthClients = pgTable(
  "oauth_clients",
  {
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    name: text("name").notNull(),
    /** The public identifier the application sends (`armc_…`). */
    clientId: text("client_id").notNull().unique(),
    redirectUris: jsonb("redirect_uris").$type<string[]>().notNull().default([]),
    grantTypes: jsonb("grant_types").$type<OAuthGrantType[]>().notNull(),
    createdBy: uuid("created_by").references(() => workspacePeople.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (table) => [index("oauth_clients_org_idx").on(table.organizationId)],
);

/**
 * Written by: workspace. Read by: no other service.
 * A person's consent to one application in one organization: the family of every token issued
 * under it. Revoked (by the person, by a refresh token used twice) it ends them all.
 */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    clientId: uuid("client_id")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    personId: uuid("person_id")
      .notNull()
      .references(() => workspacePeople.id, { onDelete: "cascade" }),
    scope: text("scope").notNull(),
    createdAt: createdAt(),
    lastUsedAt: tstz("last_used_at"),
    revokedAt: tstz("revoked_at"),
  },
  (table) => [index("oauth_grants_person_idx").on(table.personId)],
);

/**
 * Written by: workspace. Read by: no other service.
 * An authorization code (ten minutes, single use): only its SHA-256 is kept, with the PKCE
 * challenge (S256) and the exact redirect URI it was issued for.
 */
export const oauthAuthorizationCodes = pgTable("oauth_authorization_codes", {
  codeHash: text("code_hash").primaryKey(),
  clientId: uuid("client_id")
    .notNull()
    .references(() => oauthClients.id, { onDelete: "cascade" }),
  organizationId: uuid("organization_id")
    .notNull()
    .references(() => organizations.id),
  personId: uuid("person_id")
    .notNull()
    .references(() => workspacePeople.id, { onDelete: "cascade" }),
  redirectUri: text("redirect_uri").notNull(),
  codeChallenge: text("code_challenge").notNull(),
  scope: text("scope").notNull(),
  expiresAt: tstz("expires_at").notNull(),
  /** Set when exchanged; a second exchange revokes the grant it made. */
  usedAt: tstz("used_at"),
  grantId: uuid("grant_id").references(() => oauthGrants.id, { onDelete: "set null" }),
  createdAt: createdAt(),
});

/**
 * Written by: workspace. Read by: no other service.
 * A device authorization (RFC 8628): the device code's SHA-256, the short code a person types,
 * and the person's answer. Ten minutes; polled no faster than `interval_seconds`.
 */
export const oauthDeviceAuthorizations = pgTable("oauth_device_authorizations", {
  id: uuid("id").primaryKey(),
  deviceCodeHash: text("device_code_hash").notNull().unique(),
  /** `WDJB-MJHT`: eight letters of an unambiguous alphabet, stored without the dash. */
  userCode: text("user_code").notNull().unique(),
  clientId: uuid("client_id")
    .notNull()
    .references(() => oauthClients.id, { onDelete: "cascade" }),
  scope: text("scope").notNull(),
  status: text("status", { enum: ["pending", "allowed", "denied"] })
    .notNull()
    .default("pending"),
  organizationId: uuid("organization_id").references(() => organizations.id),
  personId: uuid("person_id").references(() => workspacePeople.id, { onDelete: "cascade" }),
  intervalSeconds: integer("interval_seconds").notNull().default(5),
  expiresAt: tstz("expires_at").notNull(),
  lastPolledAt: tstz("last_polled_at"),
  /** Set when the tokens were issued: the device code is spent. */
  usedAt: tstz("used_at"),
  createdAt: createdAt(),
});

/**
 * Written by: workspace. Read by: no other service.
 * Access tokens (`armo_`, one hour) and refresh tokens (`armr_`, single use, rotated): only their
 * SHA-256 is kept, each in its grant's family.
 */
export const oauthTokens = pgTable(
  "oauth_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    kind: text("kind", { enum: ["access", "refresh"] }).notNull(),
    grantId: uuid("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    expiresAt: tstz("expires_at").notNull(),
    /** A refresh token exchanged for the next; used again, its family is revoked. */
    usedAt: tstz("used_at"),
    revokedAt: tstz("revoked_at"),
    createdAt: createdAt(),
  },
  (table) => [index("oauth_tokens_grant_idx").on(table.grantId)],
);

/**
 * Written by: webhooks (its internal API takes the workspace's commands; the CMS writer records
 * each connection's health). Read by: workspace (whose organization a connection named by id is).
 * A client's CMS the organization's published stories are written into (WordPress or Ghost).
 */
export const cmsConnections = pgTable(
  "cms_connections",
  {
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id),
    kind: text("kind", { enum: ["wordpress", "ghost"] }).notNull(),
    /** The site's address (WordPress) or the Admin API's (Ghost), checked like an endpoint's. */
    url: text("url").notNull(),
    /** The credential as JSON, sealed like a webhook secret: never shown again. */
    credentialCiphertext: text("credential_ciphertext").notNull(),
    /** What unpublishing a story does to its post: back to a draft, or to the trash. */
    unpublishMode: text("unpublish_mode", { enum: ["draft", "trash"] })
      .notNull()
      .default("draft"),
    enabled: boolean("enabled").notNull().default(true),
    /** `unchecked` until a check or a write answers; `failing` after writes kept failing. */
    status: text("status", { enum: ["unchecked", "working", "failing"] })
      .notNull()
      .default("unchecked"),
    /** The last check's or write's problem in plain words, or null. Never a credential. */
    lastError: text("last_error"),
    lastErrorAt: tstz("last_error_at"),
    /** Failed write attempts in a row; a success resets it. */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    /**
     * Set in the transaction that marks the connection failing: the id of the
     * `cms_connection.failing` event owed (its owners are emailed once). Cleared once published.
     */
    failingAnnouncementId: uuid("failing_announcement_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index("cms_connections_org_idx").on(table.organizationId, table.createdAt)],
);

/**
 * Written by: webhooks (the CMS writer). Read by: no other service.
 * A story's post in a connection's CMS: recorded right after the create, so that a story is
 * never created twice (and looked up by its marker when a crash came between the two).
 */
export const cmsPosts = pgTable(
  "cms_posts",
  {
    connectionId: uuid("connection_id")
      .notNull()
      .references(() => cmsConnections.id, { onDelete: "cascade" }),
    storyId: uuid("story_id").notNull(),
    organizationId: uuid("organization_id").notNull(),
    remoteId: text("remote_id").notNull(),
    /** The CMS's own last-modified stamp (Ghost's `updated_at`), for its conflict check. */
    remoteUpdatedAt: text("remote_updated_at"),
    remoteUrl: text("remote_url"),
    /** The story version last written; null after an unpublish. */
    writtenVersion: integer("written_version"),
    marker: text("marker").notNull(),
    state: text("state", { enum: ["published", "unpublished"] }).notNull(),
    updatedAt: updatedAt(),
  },
  (table) => [primaryKey({ columns: [table.connectionId, table.storyId] })],
);

/**
 * Written by: webhooks (the CMS writer). Read by: no other service.
 * A cleared asset already in a connection's media library: uploaded once, reused by every story.
 */
export const cmsImages = pgTable(
  "cms_images",
  {
    connectionId: uuid("connection_id")
      .notNull()
      .references(() => cmsConnections.id, { onDelete: "cascade" }),
    assetId: uuid("asset_id").notNull(),
    organizationId: uuid("organization_id").notNull(),
    remoteId: text("remote_id").notNull(),
    remoteUrl: text("remote_url").notNull(),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.connectionId, table.assetId] })],
);

/**
 * Written by: webhooks (the CMS writer). Read by: no other service.
 * One story event to write into one connection: `publish` (create or update) or `unpublish`,
 * attempted on the webhook retry schedule, one at a time and in order per connection and story.
 */
export const cmsWrites = pgTable(
  "cms_writes",
  {
    id: uuid("id").primaryKey(),
    organizationId: uuid("organization_id").notNull(),
    connectionId: uuid("connection_id")
      .notNull()
      .references(() => cmsConnections.id, { onDelete: "cascade" }),
    storyId: uuid("story_id").notNull(),
    /** The story event this write is for: one write per connection and event. */
    eventId: uuid("event_id").notNull(),
    action: text("action", { enum: ["publish", "unpublish"] }).notNull(),
    /** What the last attempt did in the CMS: `create`, `update` or `unpublish`. */
    performed: text("performed", { enum: ["create", "update", "unpublish", "none"] }),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: tstz("next_attempt_at").notNull().defaultNow(),
    /** A worker's claim: no other worker takes the write until then. */
    lockedUntil: tstz("locked_until"),
    lastError: text("last_error"),
    doneAt: tstz("done_at"),
    /** Every attempt of the schedule failed, or the CMS refused the write outright. */
    failedAt: tstz("failed_at"),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex("cms_writes_event_idx").on(table.connectionId, table.eventId),
    index("cms_writes_due_idx").on(table.nextAttemptAt),
    index("cms_writes_story_idx").on(table.organizationId, table.storyId, table.createdAt),
  ],
);

/**
 * Written by: workspace (the status prober and staff). Read by: no other service.
 * One row per status page component: the state its probes derived on the last round, and the
 * state staff set over it (shown instead until cleared).
 */
export const statusComponents = pgTable("status_components", {
  /** The component's stable id (`public-newsroom`, `client-api`, ...). */
  id: text("id").primaryKey(),
  /** operational|degraded_performance|partial_outage|major_outage|under_maintenance */
  derivedState: text("derived_state").notNull().default("operational"),
  /** What the probes saw (the failing probe's words), for staff. */
  detail: text("detail"),
  checkedAt: tstz("checked_at"),
  overrideState: text("override_state"),
  overrideNote: text("override_note"),
  overrideAt: tstz("override_at"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * Written by: workspace (the status prober). Read by: no other service.
 * The probe rounds of each component per UTC day, by the state each round derived: the uptime
 * bars. Kept 90 days.
 */
export const statusDailyUptime = pgTable(
  "status_daily_uptime",
  {
    componentId: text("component_id").notNull(),
    day: text("day").notNull(),
    rounds: integer("rounds").notNull().default(0),
    degraded: integer("degraded").notNull().default(0),
    partialOutage: integer("partial_outage").notNull().default(0),
    majorOutage: integer("major_outage").notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.componentId, table.day] })],
);

/**
 * Written by: workspace (staff). Read by: no other service.
 * An incident or a scheduled maintenance on the status page.
 */
export const statusIncidents = pgTable(
  "status_incidents",
  {
    id: uuid("id").primaryKey(),
    /** `incident` or `maintenance`. */
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    /** investigating|identified|monitoring|resolved|postmortem, or scheduled|in_progress|verifying|completed. */
    status: text("status").notNull(),
    /** none|minor|major|critical|maintenance */
    impact: text("impact").notNull(),
    /** The affected components and the state each is in for this incident. */
    components: jsonb("components").$type<{ id: string; status: string }[]>().notNull().default([]),
    scheduledFor: tstz("scheduled_for"),
    scheduledUntil: tstz("scheduled_until"),
    startedAt: tstz("started_at").notNull().defaultNow(),
    monitoringAt: tstz("monitoring_at"),
    resolvedAt: tstz("resolved_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index("status_incidents_created_idx").on(table.createdAt)],
);

/** Written by: workspace (staff). Read by: no other service. Each dated update of an incident. */
export const statusIncidentUpdates = pgTable(
  "status_incident_updates",
  {
    id: uuid("id").primaryKey(),
    incidentId: uuid("incident_id")
      .notNull()
      .references(() => statusIncidents.id, { onDelete: "cascade" }),
    status: text("status").notNull(),
    body: text("body").notNull(),
    /** The affected components as this update left them. */
    components: jsonb("components").$type<{ id: string; status: string }[]>().notNull().default([]),
    createdAt: createdAt(),
  },
  (table) => [index("status_incident_updates_incident_idx").on(table.incidentId, table.createdAt)],
);

/**
 * Written by: workspace (staff changes, the relay). Read by: no other service.
 * The status page's events (`status.incident_updated`), written with the change and published to
 * the bus by the workspace's outbox relay: the whole event is kept, as it names no story.
 */
export const statusOutboxEvents = pgTable(
  "status_outbox_events",
  {
    id: uuid("id").primaryKey(),
    type: text("type").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    publishedAt: tstz("published_at"),
    traceParent: text("trace_parent"),
  },
  (table) => [
    index("status_outbox_unpublished_idx").on(table.createdAt).where(sql`published_at is null`),
  ],
);
