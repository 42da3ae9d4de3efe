import { html } from "@newsroom/shared/html";

/**
 * The small HTML pages of the confirmation flow: one heading, one message, at most one button.
 * Styled with the organization's accent; no script, no external resources, no cookies.
 */
export interface PageContent {
  title: string;
  heading: string;
  message: string;
  /** Who the page speaks for (the organization's name). */
  brand: string;
  accent?: string | null;
  /** The one button: a form that POSTs the token. */
  form?: { action: string; token: string; button: string };
  /** A link back to the newsroom the reader subscribed from (subscribed and unsubscribed pages). */
  back?: { href: string; label: string } | null;
}

const DEFAULT_ACCENT = "#1a73e8";

/** A colour only when it is plain hex: nothing else reaches the style sheet. */
export function safeAccent(accent: string | null | undefined): string {
  return accent && /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(accent) ? accent : DEFAULT_ACCENT;
}

/** WCAG 2 relative luminance of a `#rgb` or `#rrggbb` colour. */
export function luminanceOf(colour: string): number {
  const hex =
    colour.length === 4
      ? colour
          .slice(1)
          .split("")
          .map((c) => c + c)
          .join("")
      : colour.slice(1);
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
}

/** WCAG 2 contrast ratio of two colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminanceOf(a), luminanceOf(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/**
 * Black or white text, whichever has more contrast on the accent. Pure black, not a softer
 * near-black: with black and white to choose from, every colour reaches 4.5:1 (WCAG AA), which
 * #111111 does not (4.2:1 on the default accent).
 */
export function textOn(accent: string): string {
  return contrastRatio(accent, "#ffffff") >= contrastRatio(accent, "#000000")
    ? "#ffffff"
    : "#000000";
}

export function renderPage(content: PageContent): string {
  const accent = safeAccent(content.accent);
  const form = content.form
    ? html`<form method="post" action="${content.form.action}">
        <input type="hidden" name="t" value="${content.form.token}">
        <button type="submit">${content.form.button}</button>
      </form>`
    : "";
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${content.title}</title>
<style>
  :root { --accent: ${accent}; --on-accent: ${textOn(accent)}; }
  body { margin: 0; font: 1.0625rem/1.5 system-ui, -apple-system, "Segoe UI", sans-serif;
    color: #1f2328; background: #f6f8fa; }
  main { max-width: 32rem; margin: 4rem auto; padding: 2rem; background: #fff;
    border-top: 0.375rem solid var(--accent); border-radius: 0.5rem;
    box-shadow: 0 1px 3px rgba(0,0,0,0.12); }
  .brand { margin: 0 0 0.5rem; font-size: 0.875rem; font-weight: 600; color: #57606a; }
  h1 { margin: 0 0 1rem; font-size: 1.5rem; line-height: 1.25; }
  p { margin: 0 0 1.5rem; }
  button { font: inherit; font-weight: 600; padding: 0.75rem 1.5rem; border: 0;
    border-radius: 0.375rem; background: var(--accent); color: var(--on-accent); cursor: pointer; }
  button:focus-visible, a:focus-visible { outline: 3px solid #1f2328; outline-offset: 3px; }
  a { color: inherit; font-weight: 600; }
  @media (prefers-color-scheme: dark) {
    body { background: #0d1117; color: #e6edf3; }
    main { background: #161b22; }
    .brand { color: #9198a1; }
    button:focus-visible, a:focus-visible { outline-color: #e6edf3; }
  }
</style>
</head>
<body>
<main>
  <p class="brand">${content.brand}</p>
  <h1>${content.heading}</h1>
  <p>${content.message}</p>
  ${form}
  ${content.back ? html`<p><a href="${content.back.href}">${content.back.label}</a></p>` : ""}
</main>
</body>
</html>
`.toString();
}

/** Headers of every page: never cached, never framed, the token never sent on as Referer. */
export const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
} as const;

export function pageResponse(content: PageContent, status: number): Response {
  return new Response(renderPage(content), { status, headers: PAGE_HEADERS });
}
