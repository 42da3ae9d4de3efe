/**
 * Public answers carry a strong `ETag` from their exact bytes and, where the answer knows it,
 * `Last-Modified` (the newest change it shows); `notModified` in the shared HTTP kit answers the
 * conditional GETs.
 */

/** An HTTP date (IMF-fixdate), to the second as the format allows. */
export function httpDate(date: Date): string {
  return date.toUTCString();
}

/** The newest `updated_at` of what an answer shows (its Last-Modified), or null for nothing. */
export function newestChange(shown: { updated_at: string }[]): Date | null {
  let newest: number | null = null;
  for (const { updated_at } of shown) {
    const at = Date.parse(updated_at);
    if (newest === null || at > newest) newest = at;
  }
  return newest === null ? null : new Date(newest);
}
