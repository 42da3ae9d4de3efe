import { freePort } from "@newsroom/shared/testing/ports";
import "./quiet-oidc-provider.ts";
import Provider from "oidc-provider";

export interface ProviderAccount {
  email?: string;
  email_verified?: boolean;
}

/**
 * A real OpenID provider (oidc-provider) on 127.0.0.1 with one confidential client, PKCE
 * required and its development login and consent pages. The login name is the account id; its
 * `email` claim is the login name unless `accounts` says otherwise.
 */
export async function startOidcProvider(
  redirectUri: string,
  options: { emailInIdToken?: boolean } = {},
) {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = "workspace-test-client";
  const clientSecret = `secret-${crypto.randomUUID()}`;
  const accounts = new Map<string, ProviderAccount>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    // By default as most providers do: the ID token from the token endpoint carries the email
    // scope's claims. Without, they are only at the UserInfo endpoint (oidc-provider's default).
    conformIdTokenClaims: options.emailInIdToken === false,
    cookies: { keys: [crypto.randomUUID()] },
    async findAccount(_context, sub) {
      const account = accounts.get(sub) ?? {};
      return {
        accountId: sub,
        async claims() {
          const claims: Record<string, unknown> = { sub, email: account.email ?? sub };
          if (!("email_verified" in account)) claims.email_verified = true;
          else if (account.email_verified !== undefined)
            claims.email_verified = account.email_verified;
          return claims as { sub: string };
        },
      };
    },
  });
  const server = provider.listen(port, "127.0.0.1");

  /**
   * Follows the authorization URL through the provider's login (as `login`) and consent pages,
   * with the provider's own cookies; gives the address it finally sends the browser back to.
   */
  async function authorize(authorizationUrl: string, login: string): Promise<URL> {
    const jar = new Map<string, string>();
    const go = async (url: string, form?: Record<string, string>) => {
      const response = await fetch(new URL(url, issuer), {
        method: form ? "POST" : "GET",
        headers: {
          cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; "),
          ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
        },
        body: form ? new URLSearchParams(form) : undefined,
        redirect: "manual",
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const at = pair!.indexOf("=");
        jar.set(pair!.slice(0, at), pair!.slice(at + 1));
      }
      return response;
    };
    let response = await go(authorizationUrl);
    for (let step = 0; step < 10; step++) {
      const location = response.headers.get("location");
      if (location) {
        const next = new URL(location, issuer);
        if (next.origin !== issuer) return next;
        response = await go(next.href);
        continue;
      }
      const page = await response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      if (!action) throw new Error(`the provider answered ${response.status} without a form`);
      response = page.includes('name="login"')
        ? await go(action, { prompt: "login", login, password: "any" })
        : await go(action, { prompt: "consent" });
    }
    throw new Error("the provider never sent the browser back");
  }

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    authorize,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
