import { createHmac } from "node:crypto";

const SECRET_PREFIX = "whsec_";

/** The HMAC key of a `whsec_...` secret: the base64-decoded part after the prefix. */
export function signingKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, "base64");
}

/**
 * The Standard Webhooks signature: `v1,` and base64 of HMAC-SHA256 over
 * `{webhook-id}.{webhook-timestamp}.{body}`. The webhooks service signs with it and the
 * workspace's signature checker compares with it.
 */
export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac("sha256", signingKey(secret))
    .update(`${id}.${timestamp}.${body}`)
    .digest("base64");
  return `v1,${mac}`;
}
