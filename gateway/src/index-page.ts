import { html } from "@newsroom/shared/html";

/**
 * `GET /` on the service's own host: a small page of links for a person who opens the address
 * (the newsroom, the workspace web app, the API reference, and in development the local email
 * inbox), instead of a JSON 404. On a client's hostname `/` is that client's newsroom page.
 */
export interface IndexLinks {
  /** The hosted newsrooms' base (NEWSROOM_HOST), for a path prefix on this host. */
  newsrooms: string;
  /** The SES emulator's address, in development only. */
  inbox?: string;
}

export function indexPage(links: IndexLinks): Response {
  const inbox = links.inbox
    ? html`<li><a href="${links.inbox}">Email inbox</a> of the local SES emulator (development):
        sign-in codes and form emails</li>`
    : "";
  const page = html`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Newsroom service</title>
  <link rel="icon" href="/favicon.ico" type="image/svg+xml">
  <style>
    body { font: 1rem/1.5 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; }
    a { color: #0645ad; }
    li { margin: 0.5rem 0; }
  </style>
</head>
<body>
  <main>
    <h1>Newsroom service</h1>
    <ul>
      <li><a href="/newsroom">Newsroom</a>: the house newsroom's published stories</li>
      <li><a href="${links.newsrooms}">Hosted newsrooms</a>: one per client site, at
        ${links.newsrooms}/{site}</li>
      <li><a href="/app/">Workspace</a>: the web app where organizations review, approve and
        publish their stories and manage keys, sites and members</li>
      <li><a href="/docs">API reference</a> (<a href="/v1/openapi.json">OpenAPI document</a>)</li>
      ${inbox}
      <li><a href="/health">Health</a></li>
    </ul>
  </main>
</body>
</html>
`;
  return new Response(page.value, {
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" },
  });
}
