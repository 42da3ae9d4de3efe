import { createHash, timingSafeEqual } from "node:crypto";
import { ApiError } from "@newsroom/shared/errors";

/** Compares the bearer token with ADMIN_TOKEN in constant time (digests of equal length). */
export function checkAdminToken(header: string | null, adminToken: string): void {
  const presented = header?.startsWith("Bearer ") ? header.slice(7) : "";
  const a = createHash("sha256").update(presented).digest();
  const b = createHash("sha256").update(adminToken).digest();
  if (!presented || !timingSafeEqual(a, b)) {
    throw new ApiError("unauthorized", undefined, { headers: { "www-authenticate": "Bearer" } });
  }
}
