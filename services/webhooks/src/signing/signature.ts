import { signPayload } from "@newsroom/shared/webhook-signature";

export { signingKey, signPayload } from "@newsroom/shared/webhook-signature";

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
