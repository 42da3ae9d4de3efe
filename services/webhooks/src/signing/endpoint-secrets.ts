import { open } from "@newsroom/shared/secret-box";
import type { EndpointRow } from "../delivery/store.ts";

type SealedSecrets = Pick<
  EndpointRow,
  "secretCiphertext" | "previousSecretCiphertext" | "previousSecretExpiresAt"
>;

/**
 * The secrets a request to this endpoint is signed with: its current one, and after a rotation
 * the one it replaced until that one expires (24 hours), so receivers switch without a gap.
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
