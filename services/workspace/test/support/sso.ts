import { expect } from "bun:test";
import { startOidcProvider } from "./oidc-provider.ts";
import { type Answer, type WebClient, type WebHarness, webHarness } from "./web-app.ts";

/**
 * The web app with a real OpenID provider, and one organization (`slug`) whose single sign-on
 * uses it for `domain`, set through the internal API.
 */
export async function ssoHarness(slug: string, domain: string) {
  const h = await webHarness();
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
  return {
    h,
    provider,
    /** The visitor's way to the provider: the form, the step page, and /start. */
    async start(visitor: WebClient, organization: string = slug) {
      await visitor.get("/app/sign-in");
      const form = await visitor.post("/app/sso", { organization });
      expect(form.status).toBe(200);
      const start = /href="(\/app\/sso\/[^"]+\/start)"/.exec(form.text)![1]!;
      const answer = await visitor.get(start);
      expect(answer.status).toBe(303);
      expect(visitor.cookies.has("nr_sso")).toBe(true);
      return answer.headers.get("location")!;
    },
    /** Back from the provider to the app's callback, as the browser follows the redirect. */
    async callback(visitor: WebClient, url: URL): Promise<Answer> {
      expect(url.origin + url.pathname).toBe(`${h.url}/app/sso/callback`);
      return visitor.get(url.pathname + url.search);
    },
    async close() {
      await provider.close();
      await h.close();
    },
  };
}

export type SsoHarness = Awaited<ReturnType<typeof ssoHarness>>;
export type { WebHarness };
