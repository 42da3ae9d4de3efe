import { createHmac } from "node:crypto";
import { promises as dns } from "node:dns";
import type { Db } from "@newsroom/shared/db/index";
import { audit } from "../../audit.ts";
import {
  claimVerifiedDomain,
  findSsoConfig,
  type VerifiedDomainRow,
  verifiedDomainOwner,
  verifiedDomainsOf,
} from "./store.ts";

/**
 * An email domain's proof of control: the organization publishes a TXT record holding its
 * verification token at `_newsroom-verify.<domain>`. Until it is found there the domain is
 * pending and signs nobody in.
 */
export const VERIFICATION_RECORD_PREFIX = "_newsroom-verify";
const VERIFICATION_VALUE_PREFIX = "newsroom-domain-verification=";

/** The TXT texts at a name (each record's strings joined); none when the name has no record. */
export type TxtLookup = (name: string) => Promise<string[]>;

/** Seconds one lookup may take (per try), and how many tries. */
const LOOKUP_TIMEOUT_MS = 5_000;
const LOOKUP_TRIES = 2;

/**
 * `DNS_RESOLVERS` ("127.0.0.1:5353, [::1]:53") as a list; unset or blank: the system's resolvers.
 * A list that cannot be used throws at start-up (the first resolver is made at once).
 */
export function txtLookup(servers: string | undefined): TxtLookup {
  const list = (servers ?? "")
    .split(",")
    .map((server) => server.trim())
    .filter(Boolean);
  // A resolver per lookup: a record published a moment ago is not hidden by a cached answer.
  const resolverNow = () => {
    const resolver = new dns.Resolver({ timeout: LOOKUP_TIMEOUT_MS, tries: LOOKUP_TRIES });
    if (list.length > 0) resolver.setServers(list);
    return resolver;
  };
  resolverNow();
  return async (name) => {
    const resolver = resolverNow();
    try {
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(""));
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "ENOTFOUND" || code === "ENODATA") return [];
      throw error;
    }
  };
}

/** The organization's token: derived from SECRETS_KEY, so nothing is stored and no one can guess it. */
export function domainVerificationToken(secretsKey: Buffer, organizationId: string): string {
  return createHmac("sha256", secretsKey)
    .update(`sso domain verification:${organizationId}`)
    .digest("base64url")
    .slice(0, 32);
}

/** The TXT record that proves `domain` for the organization. */
export function verificationRecord(
  secretsKey: Buffer,
  organizationId: string,
  domain: string,
): { name: string; value: string } {
  return {
    name: `${VERIFICATION_RECORD_PREFIX}.${domain}`,
    value: `${VERIFICATION_VALUE_PREFIX}${domainVerificationToken(secretsKey, organizationId)}`,
  };
}

export interface DomainStatus {
  domain: string;
  status: "pending" | "verified";
  verifiedAt: Date | null;
  record: { name: string; value: string };
}

/** Each allowed domain of the organization with its status and the record to publish. */
export async function domainStatuses(
  db: Db,
  secretsKey: Buffer,
  organizationId: string,
  allowedDomains: string[],
): Promise<DomainStatus[]> {
  const verified = new Map<string, VerifiedDomainRow>(
    (await verifiedDomainsOf(db, organizationId)).map((row) => [row.domain, row]),
  );
  return allowedDomains.map((domain) => {
    const row = verified.get(domain);
    return {
      domain,
      status: row ? "verified" : "pending",
      verifiedAt: row?.verifiedAt ?? null,
      record: verificationRecord(secretsKey, organizationId, domain),
    };
  });
}

export type VerifyOutcome =
  | { ok: true; verifiedAt: Date }
  | {
      ok: false;
      reason: "not_allowed" | "taken" | "record_missing" | "lookup_failed";
      message: string;
    };

/**
 * Looks the domain's TXT record up and, when it holds the organization's token, records the
 * domain as the organization's (audited). A domain another organization verified stays theirs.
 */
export async function verifySsoDomain(
  db: Db,
  deps: { secretsKey: Buffer; lookupTxt: TxtLookup },
  organizationId: string,
  domain: string,
  options: { actor: string; now: Date },
): Promise<VerifyOutcome> {
  const config = await findSsoConfig(db, organizationId);
  if (!config?.allowedDomains.includes(domain)) {
    return {
      ok: false,
      reason: "not_allowed",
      message: `${domain} is not one of the allowed domains: add it and save first.`,
    };
  }
  const taken: VerifyOutcome = {
    ok: false,
    reason: "taken",
    message: `${domain} is verified by another organization: a domain signs people in for one organization only.`,
  };
  const owner = await verifiedDomainOwner(db, domain);
  if (owner && owner.organizationId !== organizationId) return taken;
  if (owner) return { ok: true, verifiedAt: owner.verifiedAt };
  const record = verificationRecord(deps.secretsKey, organizationId, domain);
  let texts: string[];
  try {
    texts = await deps.lookupTxt(record.name);
  } catch {
    return {
      ok: false,
      reason: "lookup_failed",
      message: `The DNS lookup of ${record.name} failed. Try again in a few minutes.`,
    };
  }
  if (!texts.some((text) => text.trim() === record.value)) {
    return {
      ok: false,
      reason: "record_missing",
      message: `No TXT record ${record.name} with the value ${record.value} was found. Publish it, wait for DNS to update, then verify again.`,
    };
  }
  // Claimed only now: two organizations verifying at once cannot both have it.
  const claimed = await db.transaction(async (tx) => {
    if (!(await claimVerifiedDomain(tx, organizationId, domain, options.now))) return false;
    await audit(tx, organizationId, `sso.domain_verified:${domain}`, null, options.actor);
    return true;
  });
  return claimed ? { ok: true, verifiedAt: options.now } : taken;
}
