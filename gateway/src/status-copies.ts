import { pathOf } from "@newsroom/shared/http/urls";

/**
 * The status page's last good answers, kept by the gateway: when the workspace that renders the
 * page cannot be reached, the page and its JSON are answered from them (`Cache-Control:
 * public, max-age=10`, `Warning`-free: the page itself says when it was taken). Only the fixed
 * paths below are kept, and only the last 200 answer of each, so the memory is bounded.
 */
const KEPT_PATHS = new Set([
  "/status",
  "/status/styles.css",
  "/status/history.atom",
  "/status/history.rss",
  "/api/v2/summary.json",
  "/api/v2/status.json",
  "/api/v2/components.json",
  "/api/v2/incidents.json",
  "/api/v2/incidents/unresolved.json",
  "/api/v2/scheduled-maintenances.json",
  "/api/v2/scheduled-maintenances/upcoming.json",
  "/api/v2/scheduled-maintenances/active.json",
]);

/** Answers above this size are not kept (the page is some 100 KB). */
const MAX_BYTES = 1_000_000;

interface Copy {
  body: ArrayBuffer;
  headers: [string, string][];
}

const HANDED_ON = [
  "content-type",
  "etag",
  "content-security-policy",
  "access-control-allow-origin",
  "x-content-type-options",
  "x-frame-options",
  "referrer-policy",
];

export class StatusCopies {
  private readonly copies = new Map<string, Copy>();

  /** Whether a request is one whose answer is kept. */
  keeps(request: Request): boolean {
    return request.method === "GET" && KEPT_PATHS.has(pathOf(request.url));
  }

  /** Keeps a copy of a 200 answer and hands on an equal one. */
  async keep(request: Request, response: Response): Promise<Response> {
    if (response.status !== 200 || !this.keeps(request)) return response;
    const body = await response.arrayBuffer();
    if (body.byteLength <= MAX_BYTES) {
      const headers: [string, string][] = [];
      for (const name of HANDED_ON) {
        const value = response.headers.get(name);
        if (value !== null) headers.push([name, value]);
      }
      this.copies.set(pathOf(request.url), { body, headers });
    }
    return new Response(body, { status: 200, headers: response.headers });
  }

  /** The kept answer, when the workspace cannot be reached; else undefined. */
  fallback(request: Request): Response | undefined {
    if (!this.keeps(request)) return undefined;
    const copy = this.copies.get(pathOf(request.url));
    if (!copy) return undefined;
    const headers = new Headers(copy.headers);
    headers.set("cache-control", "public, max-age=10");
    return new Response(copy.body, { status: 200, headers });
  }
}
