import type { webhookEndpoints } from "./db/schema.ts";
import { open } from "./secret-box.ts";

type SealedSecrets = Pick<
  typeof webhookEndpoints.$inferSelect,
  "secretCiphertext" | "previousSecretCiphertext" | "previousSecretExpiresAt"
>;

/**
 * The secrets requests to this endpoint are signed with: its current one, and after a rotation
 * the one it replaced until that one expires (24 hours), so receivers switch without a gap. The
 * webhooks service signs with them; the workspace's signature checker accepts them.
 */
export function signingSecrets(endpoint: SealedSecrets, key: Buffer, now: Date): string[] {
  const secrets = [open(endpoint.secretCiphertext, key)];
  if (
    endpoint.previousSecretCiphertext &&
    endpoint.previousSecretExpiresAt &&
    endpoint.previousSecretExpiresAt.getTime() > now.getTime()
  ) {
    secrets.push(open(endpoint.previousSecretCiphertext, key));
  }
  return secrets;
}
