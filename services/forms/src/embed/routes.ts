import { readFileSync } from "node:fs";
import { Elysia } from "elysia";
import { embedOperation } from "../contract.ts";

/** The script, read once at start: dependency-free, sets no cookie. */
const SCRIPT = readFileSync(new URL("./newsletter-embed.js", import.meta.url), "utf8");

export const EMBED_HEADERS = {
  "content-type": "text/javascript; charset=utf-8",
  "cache-control": "public, max-age=3600",
  "x-content-type-options": "nosniff",
  "cross-origin-resource-policy": "cross-origin",
} as const;

export function embedRoutes() {
  return new Elysia().get(
    "/v1/public/newsletter/embed.js",
    () => new Response(SCRIPT, { headers: EMBED_HEADERS }),
    { detail: embedOperation },
  );
}
