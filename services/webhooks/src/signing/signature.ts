import { createHmac } from "node:crypto";

const SECRET_PREFIX = "whsec_";

/** The HMAC key of a `whsec_...` secret: the base64-decoded part after the prefix. */
export function signingKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, "base64");
}

/**
 * The Standard Webhooks signature: `v1,` and base64 of HMAC-SHA256 over
 * `{webhook-id}.{webhook-timestamp}.{body}`.
 */
export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac("sha256", signingKey(secret))
    .update(`${id}.${timestamp}.${body}`)
    .digest("base64");
  return `v1,${mac}`;
}

/**
 * The three headers of a signed request, signed now. With several secrets (a rotation's new and
 * old one) `webhook-signature` holds one `v1,` entry per secret, separated by spaces, as Standard
 * Webhooks allows: a receiver holding either secret verifies the request.
 */
export function signedHeaders(
  secrets: string | readonly string[],
  id: string,
  body: string,
  now: Date = new Date(),
): Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const all = typeof secrets === "string" ? [secrets] : secrets;
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": all.map((secret) => signPayload(secret, id, timestamp, body)).join(" "),
  };
}
