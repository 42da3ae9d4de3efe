import type { Config } from "@newsroom/shared/config";

/** `scheme://host[:port]`, lower-cased, for http and https addresses; null for anything else. */
export function originOf(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    return url.origin.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Where a request comes from: its Origin, else (no Origin at all) its Referer's origin. An
 * `Origin: null` (a sandboxed frame, a redirect across sites, a `data:` page) names no origin:
 * it is never an allowed one, and the Referer of such a request is not believed instead.
 */
export function requestOrigin(request: Request): string | null {
  const origin = request.headers.get("origin");
  if (origin !== null) return originOf(origin);
  return originOf(request.headers.get("referer"));
}

/**
 * The origins that may post to an organization's subscribe route: its own website origins, and
 * its hosted newsroom (the NEWSROOM_HOST origin, and each active custom hostname over https);
 * for HOUSE_ORG, the NEWSROOM_HOST origin too (its pages are at `/newsroom` there).
 */
export function allowedOrigins(
  config: Pick<Config, "NEWSROOM_HOST" | "HOUSE_ORG">,
  newsletterOrigins: string[],
  sites: { hostnames: string[] }[],
  organizationSlug: string,
): Set<string> {
  const allowed = new Set<string>();
  for (const origin of newsletterOrigins) {
    const normalized = originOf(origin);
    if (normalized) allowed.add(normalized);
  }
  if (sites.length > 0 || organizationSlug === config.HOUSE_ORG) {
    const hosted = originOf(config.NEWSROOM_HOST);
    if (hosted) allowed.add(hosted);
  }
  for (const site of sites) {
    for (const hostname of site.hostnames) {
      const origin = originOf(`https://${hostname}`);
      if (origin) allowed.add(origin);
    }
  }
  return allowed;
}

/** The house newsroom's home: `/newsroom` on NEWSROOM_HOST's origin, as public-read serves it. */
export function houseNewsroomUrl(config: Pick<Config, "NEWSROOM_HOST">): string {
  return `${new URL(config.NEWSROOM_HOST).origin}/newsroom`;
}

/**
 * `url` with `?newsletter=<outcome>` set, and `newsletter_fields=<a,b>` when fields are named
 * (both replacing any earlier value).
 */
export function withOutcome(url: string, outcome: string, fields: string[] = []): string {
  const target = new URL(url);
  target.searchParams.set("newsletter", outcome);
  if (fields.length > 0) target.searchParams.set("newsletter_fields", fields.join(","));
  else target.searchParams.delete("newsletter_fields");
  return target.toString();
}
