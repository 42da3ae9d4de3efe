/**
 * PostgreSQL cannot store U+0000 in text or jsonb: an insert holding it fails. Every request
 * body that may be stored is walked once for it, so each field is refused with a 422 naming it
 * instead of a 500, without a rule repeated on every text field.
 */
const NUL = "\u0000";

/**
 * The field of every string (or object key) holding U+0000, named as in `error.fields`:
 * `name`, `body.2.text`, `newsletter_origins.0`; `body` for the value itself.
 */
export function fieldsWithNul(value: unknown, path = ""): string[] {
  const found: string[] = [];
  const walk = (current: unknown, at: string) => {
    if (typeof current === "string") {
      if (current.includes(NUL)) found.push(at || "body");
    } else if (Array.isArray(current)) {
      for (const [index, item] of current.entries()) {
        walk(item, at ? `${at}.${index}` : String(index));
      }
    } else if (current !== null && typeof current === "object") {
      for (const [key, item] of Object.entries(current)) {
        // A key with NUL is named by where it sits: its own name cannot be shown as sent.
        if (key.includes(NUL)) found.push(at || "body");
        else walk(item, at ? `${at}.${key}` : key);
      }
    }
  };
  walk(value, path);
  return [...new Set(found)];
}
