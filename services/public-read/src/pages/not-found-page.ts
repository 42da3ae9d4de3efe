import { type Html, html, raw } from "@newsroom/shared/html";
import type { Brand } from "./brand.ts";
import { layout } from "./layout.ts";

/** The 404 page of a newsroom: its brand and a way home. */
export function notFoundPage(brand: Brand, canonical: string): Html {
  return layout({
    brand: { ...brand, live: false },
    title: "Page not found",
    description: "There is no published page at this address.",
    canonical,
    main: html`<h1>Page not found</h1>
<p>There is no published page at this address.</p>
<p><a href="${brand.home}">Go to ${brand.name}</a></p>`,
  });
}

/** The plain 404 page of a host that serves no newsroom (unknown, pending or disabled). */
export function plainNotFoundPage(): Html {
  return raw(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Page not found</title></head>
<body><main><h1>Page not found</h1><p>There is no newsroom at this address.</p></main></body>
</html>
`);
}
