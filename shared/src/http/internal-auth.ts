import { createHash, timingSafeEqual } from "node:crypto";
import { ApiError } from "../errors.ts";

/**
 * Compares the bearer token with ADMIN_TOKEN in constant time (digests of equal length). Every
 * internal API checks it: the workspace's (the operator's) and those the workspace calls.
 */
export function checkAdminToken(header: string | null, adminToken: string): void {
  const presented = header?.startsWith("Bearer ") ? header.slice(7) : "";
  const a = createHash("sha256").update(presented).digest();
  const b = createHash("sha256").update(adminToken).digest();
  if (!presented || !timingSafeEqual(a, b)) {
    throw new ApiError("unauthorized", undefined, { headers: { "www-authenticate": "Bearer" } });
  }
}
