/**
 * A hosted site's canonical address: the active client hostname once there is one, otherwise the
 * hosted address `{NEWSROOM_HOST}/{site}`. Public reads serve it; the workspace shows it.
 */
export function canonicalUrl(newsroomHost: string, site: string, hostname: string | null): string {
  return hostname ? `https://${hostname}` : `${newsroomHost.replace(/\/+$/, "")}/${site}`;
}
