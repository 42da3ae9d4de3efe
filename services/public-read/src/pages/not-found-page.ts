import { type Html, html } from "@newsroom/shared/html";
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

/** A page with a heading and a sentence, no newsroom's brand (none could be read). */
function plainPage(heading: string, sentence: string): Html {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${heading}</title></head>
<body><main><h1>${heading}</h1><p>${sentence}</p></main></body>
</html>
`;
}

/** The plain 404 page of a host that serves no newsroom (unknown, pending or disabled). */
export function plainNotFoundPage(): Html {
  return plainPage("Page not found", "There is no newsroom at this address.");
}

/** The 503 page: the newsroom's content could not be read just now. */
export function unavailablePage(): Html {
  return plainPage(
    "Briefly unavailable",
    "This newsroom cannot be shown just now. Please try again in a minute.",
  );
}
