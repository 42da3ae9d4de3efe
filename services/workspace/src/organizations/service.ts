import type { Config } from "@newsroom/shared/config";
import type { Queryable } from "@newsroom/shared/db/index";
import { organizations } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { newId } from "@newsroom/shared/ids";
import { asc, eq } from "drizzle-orm";
import { findOrganization, type OrganizationRow } from "../resolve.ts";
import { parseWebsiteOrigin } from "../web/newsletter-origin.ts";
import { MAX_NEWSLETTER_ORIGINS } from "./model.ts";

export async function createOrganization(
  db: Queryable,
  input: { slug: string; name: string; newsroom_running?: boolean; sandbox?: boolean },
): Promise<OrganizationRow> {
  const [existing] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.slug, input.slug));
  if (existing) {
    throw new ApiError("conflict", "An organization with this slug exists.", {
      fields: [{ field: "slug", reason: "taken" }],
    });
  }
  const [row] = await db
    .insert(organizations)
    .values({
      id: newId(),
      slug: input.slug,
      name: input.name,
      newsroomRunning: input.newsroom_running ?? false,
      sandbox: input.sandbox ?? false,
    })
    .returning();
  return row!;
}

export async function updateOrganization(
  db: Queryable,
  idOrSlug: string,
  input: {
    name?: string;
    newsroom_running?: boolean;
    sandbox?: boolean;
    newsletter_enabled?: boolean;
    newsletter_origins?: string[];
    add_newsletter_origins?: string[];
    remove_newsletter_origins?: string[];
    api_approvals_enabled?: boolean;
  },
  serviceEnv: Config["SERVICE_ENV"],
): Promise<OrganizationRow> {
  const org = await findOrganization(db, idOrSlug);
  const origins = newsletterOriginsAfter(org.newsletterOrigins, input, serviceEnv);
  const [row] = await db
    .update(organizations)
    .set({
      name: input.name ?? org.name,
      newsroomRunning: input.newsroom_running ?? org.newsroomRunning,
      sandbox: input.sandbox ?? org.sandbox,
      newsletterEnabled: input.newsletter_enabled ?? org.newsletterEnabled,
      newsletterOrigins: origins,
      apiApprovalsEnabled: input.api_approvals_enabled ?? org.apiApprovalsEnabled,
      updatedAt: new Date(),
    })
    .where(eq(organizations.id, org.id))
    .returning();
  return row!;
}

/**
 * `newsletter_origins` replaces the list; `add_newsletter_origins` and
 * `remove_newsletter_origins` change it in place (added first, then removed). Origins put in
 * follow the one rule of `parseWebsiteOrigin`, normalized; any listed one may be removed.
 */
function newsletterOriginsAfter(
  current: string[],
  input: {
    newsletter_origins?: string[];
    add_newsletter_origins?: string[];
    remove_newsletter_origins?: string[];
    api_approvals_enabled?: boolean;
  },
  serviceEnv: Config["SERVICE_ENV"],
): string[] {
  if (
    input.newsletter_origins &&
    (input.add_newsletter_origins || input.remove_newsletter_origins)
  ) {
    throw new ApiError(
      "validation_failed",
      "Either replace newsletter_origins or add and remove origins, not both.",
      { fields: [{ field: "newsletter_origins", reason: "conflicting_fields" }] },
    );
  }
  const check = (field: string, inputs: string[]) =>
    checkedOrigins(field, inputs, current, serviceEnv);
  const next = input.newsletter_origins
    ? check("newsletter_origins", input.newsletter_origins)
    : [...current];
  for (const origin of check("add_newsletter_origins", input.add_newsletter_origins ?? [])) {
    if (!next.includes(origin)) next.push(origin);
  }
  const removed = new Set(input.remove_newsletter_origins ?? []);
  const result = next.filter((origin) => !removed.has(origin));
  if (result.length > MAX_NEWSLETTER_ORIGINS) {
    throw new ApiError(
      "validation_failed",
      `An organization may list at most ${MAX_NEWSLETTER_ORIGINS} newsletter origins.`,
      { fields: [{ field: "newsletter_origins", reason: "too_many" }] },
    );
  }
  return result;
}

/** The origins under the rule, normalized; one listed already stays as it is. */
function checkedOrigins(
  field: string,
  inputs: string[],
  current: string[],
  serviceEnv: Config["SERVICE_ENV"],
): string[] {
  return inputs.map((input, index) => {
    if (current.includes(input)) return input;
    const parsed = parseWebsiteOrigin(input, serviceEnv);
    if ("error" in parsed) {
      throw new ApiError("validation_failed", parsed.error, {
        fields: [{ field: `${field}.${index}`, reason: "invalid_origin", message: parsed.error }],
      });
    }
    return parsed.origin;
  });
}

/** Every organization, by slug: an operator's list across organizations (labelled as such). */
export async function listOrganizations(db: Queryable): Promise<OrganizationRow[]> {
  return db.select().from(organizations).orderBy(asc(organizations.slug)).limit(1000);
}

/**
 * The organization's row, locked until the transaction ends: a change computed from its current
 * settings (adding one newsletter origin) cannot undo another made at the same time.
 */
export async function lockOrganization(tx: Queryable, id: string): Promise<OrganizationRow> {
  const [row] = await tx.select().from(organizations).where(eq(organizations.id, id)).for("update");
  if (!row) throw new ApiError("not_found", "No such organization.");
  return row;
}
