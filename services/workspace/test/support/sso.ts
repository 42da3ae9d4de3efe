import { expect } from "bun:test";
import { type DnsServer, startDnsServer } from "./dns-server.ts";
import { startOidcProvider } from "./oidc-provider.ts";
import { type Answer, type WebClient, type WebHarness, webHarness } from "./web-app.ts";

/** The provider's address on a page that sends the browser on (its link), unescaped. */
export function providerLinkOf(text: string): string | null {
  const href = /<a class="button" href="(https?:[^"]+)"/.exec(text)?.[1];
  return href ? href.replaceAll("&amp;", "&").replaceAll("&#39;", "'") : null;
}

/**
 * The web app with a real OpenID provider, a DNS server of its own (DNS_RESOLVERS), and one
 * organization (`slug`) whose single sign-on uses the provider for `domain`, set and verified
 * through the internal API.
 */
export async function ssoHarness(slug: string, domain: string) {
  const dns = await startDnsServer();
  const h = await webHarness({ DNS_RESOLVERS: dns.server });
  const provider = await startOidcProvider(`${h.url}/app/sso/callback`);
  await h.admin("POST", "/orgs", { slug, name: `Org ${slug}`, newsroom_running: true });
  const configured = await h.admin("PUT", `/orgs/${slug}/sso`, {
    issuer: provider.issuer,
    client_id: provider.clientId,
    client_secret: provider.clientSecret,
    allowed_domains: [domain],
    enabled: true,
  });
  if (configured.status !== 200) throw new Error(`sso not set: ${JSON.stringify(configured.body)}`);
  await verifyDomain(h, dns, slug, domain);
  return {
    h,
    dns,
    provider,
    /** Publishes the organization's TXT record for the domain and verifies it. */
    verifyDomain: (organization: string, name: string) => verifyDomain(h, dns, organization, name),
    /**
     * The visitor's way to the provider: the sign-in page's form (a slug or an address), whose
     * answer sends the browser on to the provider.
     */
    async start(visitor: WebClient, organization: string = slug) {
      await visitor.get("/app/sign-in");
      const answer = await visitor.post("/app/sso", { organization });
      expect(answer.status).toBe(200);
      expect(visitor.cookies.has("nr_sso")).toBe(true);
      return providerLinkOf(answer.text)!;
    },
    /** Back from the provider to the app's callback, as the browser follows the redirect. */
    async callback(visitor: WebClient, url: URL): Promise<Answer> {
      expect(url.origin + url.pathname).toBe(`${h.url}/app/sso/callback`);
      return visitor.get(url.pathname + url.search);
    },
    async close() {
      await provider.close();
      await h.close();
      await dns.close();
    },
  };
}

/** The TXT record the internal API names for the domain, published, then verified. */
export async function publishDomainRecord(
  h: WebHarness,
  dns: DnsServer,
  organization: string,
  domain: string,
) {
  const listed = await h.admin("GET", `/orgs/${organization}/sso/domains`);
  const entry = listed.body.data.find((d: { domain: string }) => d.domain === domain);
  if (!entry) throw new Error(`${domain} is not allowed for ${organization}`);
  dns.records.set(entry.record.name, [entry.record.value]);
  return entry.record as { name: string; value: string };
}

async function verifyDomain(h: WebHarness, dns: DnsServer, organization: string, domain: string) {
  await publishDomainRecord(h, dns, organization, domain);
  const verified = await h.admin("POST", `/orgs/${organization}/sso/domains/${domain}/verify`);
  if (verified.status !== 200) throw new Error(`not verified: ${JSON.stringify(verified.body)}`);
}

export type SsoHarness = Awaited<ReturnType<typeof ssoHarness>>;
export type { WebHarness };
