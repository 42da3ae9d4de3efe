/**
 * A website origin as people type it, checked and normalized: `https://host[:port]`, lower-case,
 * without the default port. Anything else (another scheme, a path, a query, credentials) is an
 * error message for the field.
 */
export function parseWebsiteOrigin(input: string): { origin: string } | { error: string } {
  const text = input.trim().replace(/\/$/, "");
  if (!text) return { error: "Enter the website's origin, such as https://www.example.com." };
  if (!URL.canParse(text) || !/^https:\/\//i.test(text)) {
    return { error: "Write an https origin: https://host or https://host:port." };
  }
  const url = new URL(text);
  if (url.username || url.password || url.pathname !== "/" || url.search || url.hash) {
    return { error: "Write the origin only, without a path: https://host or https://host:port." };
  }
  return { origin: url.origin.toLowerCase() };
}
