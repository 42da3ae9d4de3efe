/** The cookies of a request, by name (the first of a repeated name wins). */
export function readCookies(header: string | null): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at === -1) continue;
    const name = part.slice(0, at).trim();
    if (name && !cookies.has(name)) cookies.set(name, part.slice(at + 1).trim());
  }
  return cookies;
}

export interface CookieOptions {
  /** Seconds; 0 deletes the cookie. Left out: a browser-session cookie. */
  maxAge?: number;
  secure: boolean;
}

/** A Set-Cookie value for the web app: HttpOnly, SameSite=Lax, Path=/app, Secure over https. */
export function appCookie(name: string, value: string, options: CookieOptions): string {
  let cookie = `${name}=${value}; Path=/app; HttpOnly; SameSite=Lax`;
  if (options.maxAge !== undefined) cookie += `; Max-Age=${options.maxAge}`;
  if (options.secure) cookie += "; Secure";
  return cookie;
}
