/** The rows of `db.execute`, which answers an array (postgres.js) or `{ rows }` (PGlite). */
export function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows: T[] }).rows ?? []);
}
