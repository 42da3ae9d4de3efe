import { createHmac, timingSafeEqual } from "node:crypto";
import { type Config, secretsKey } from "@newsroom/shared/config";

/**
 * Unsubscribe links of this service's own lists: every digest email (the welcome email, the
 * weekly issues) and every status-update email carries one, and the unsubscribe routes answer
 * them. Each list signs under its own purpose, so a digest token unsubscribes nothing else.
 *
 * A token is the subscription id (16 bytes) followed by an HMAC-SHA256 of it, both base64url:
 * 22 + 43 = 65 characters. The HMAC key is derived from SECRETS_KEY, so no token is stored and a
 * token cannot be made for another subscription. A token does not expire: an unsubscribe link in
 * an old email keeps working.
 */
export const UNSUBSCRIBE_TOKEN_SHAPE = /^[A-Za-z0-9_-]{65}$/;
export const UNSUBSCRIBE_PATH = "/v1/public/newsletter/unsubscribe";

/** A list's unsubscribe links: what its tokens are signed for, and the route that answers them. */
export interface UnsubscribeLinks {
  purpose: string;
  path: string;
}

export const DIGEST_UNSUBSCRIBE: UnsubscribeLinks = {
  purpose: "digest-unsubscribe-v1",
  path: UNSUBSCRIBE_PATH,
};

function signingKey(secretsKey: Buffer, purpose: string): Buffer {
  return createHmac("sha256", secretsKey).update(purpose).digest();
}

function uuidBytes(id: string): Buffer {
  const hex = id.replace(/-/g, "");
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error("not a UUID");
  return Buffer.from(hex, "hex");
}

function uuidOf(bytes: Buffer): string {
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The token of one subscription (the digest's unless `purpose` says another list). */
export function unsubscribeToken(
  secretsKey: Buffer,
  subscriptionId: string,
  purpose = DIGEST_UNSUBSCRIBE.purpose,
): string {
  const id = uuidBytes(subscriptionId);
  const mac = createHmac("sha256", signingKey(secretsKey, purpose)).update(id).digest();
  return `${id.toString("base64url")}${mac.toString("base64url")}`;
}

/** The subscription id a token names, or null for a malformed or forged token. */
export function readUnsubscribeToken(
  secretsKey: Buffer,
  token: string,
  purpose = DIGEST_UNSUBSCRIBE.purpose,
): string | null {
  if (!UNSUBSCRIBE_TOKEN_SHAPE.test(token)) return null;
  const id = Buffer.from(token.slice(0, 22), "base64url");
  const given = Buffer.from(token.slice(22), "base64url");
  // base64url decoding ignores stray trailing bits: re-encoding must give the same text.
  if (id.length !== 16 || given.length !== 32) return null;
  if (`${id.toString("base64url")}${given.toString("base64url")}` !== token) return null;
  const expected = createHmac("sha256", signingKey(secretsKey, purpose)).update(id).digest();
  return timingSafeEqual(given, expected) ? uuidOf(id) : null;
}

/** `{PUBLIC_BASE_URL}{path}?t=…` (the digest's path by default): the page, and the one-click target. */
export function unsubscribeLink(baseUrl: string, token: string, path = UNSUBSCRIBE_PATH): string {
  return `${baseUrl.replace(/\/+$/, "")}${path}?t=${token}`;
}

/** RFC 2369 and RFC 8058 headers: mail providers POST `List-Unsubscribe=One-Click` to the link. */
export function unsubscribeHeaders(link: string): Record<string, string> {
  return {
    "List-Unsubscribe": `<${link}>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
  };
}

/** A subscription's unsubscribe link on its list, and its List-Unsubscribe headers. */
export function signedUnsubscribe(
  config: Pick<Config, "PUBLIC_BASE_URL" | "SECRETS_KEY">,
  links: UnsubscribeLinks,
  subscriptionId: string,
) {
  const link = unsubscribeLink(
    config.PUBLIC_BASE_URL,
    unsubscribeToken(secretsKey(config), subscriptionId, links.purpose),
    links.path,
  );
  return { link, headers: unsubscribeHeaders(link) };
}

/** A digest subscription's unsubscribe link and its List-Unsubscribe headers. */
export function digestUnsubscribe(
  config: Pick<Config, "PUBLIC_BASE_URL" | "SECRETS_KEY">,
  subscriptionId: string,
) {
  return signedUnsubscribe(config, DIGEST_UNSUBSCRIBE, subscriptionId);
}
