import { type Config, ConfigError } from "@newsroom/shared/config";
import { log } from "@newsroom/shared/log";

/** Purges cache tags at the CDN; resolves once the provider accepted them (or gave up). */
export interface CdnPurger {
  readonly provider: "cloudflare" | "fastly";
  purge(tags: string[]): Promise<boolean>;
}

export interface PurgeOptions {
  /** Waits before the second, third, ... try (default 1 s, 4 s): three tries in all. */
  backoffMs?: number[];
  /** How long one request may take (default 5 s). */
  timeoutMs?: number;
}

const API_BASES = {
  cloudflare: "https://api.cloudflare.com/client/v4",
  fastly: "https://api.fastly.com",
} as const;
/** Tags per request: 30 for Cloudflare (the lowest of its plans' limits), 256 for Fastly. */
const TAGS_PER_REQUEST = { cloudflare: 30, fastly: 256 } as const;
const DEFAULT_BACKOFF_MS = [1_000, 4_000];
const DEFAULT_TIMEOUT_MS = 5_000;

/**
 * The purger CDN_PURGE_PROVIDER names, or null when it is `off` (the default). A provider
 * without CDN_PURGE_TOKEN or CDN_PURGE_ZONE stops start-up.
 */
export function cdnPurger(
  config: Pick<
    Config,
    "CDN_PURGE_PROVIDER" | "CDN_PURGE_API_BASE" | "CDN_PURGE_TOKEN" | "CDN_PURGE_ZONE"
  >,
  options: PurgeOptions = {},
): CdnPurger | null {
  const provider = config.CDN_PURGE_PROVIDER;
  if (provider === "off") return null;
  const token = config.CDN_PURGE_TOKEN;
  const zone = config.CDN_PURGE_ZONE;
  if (!token) throw new ConfigError("CDN_PURGE_TOKEN", `is required with ${provider}`);
  if (!zone) throw new ConfigError("CDN_PURGE_ZONE", `is required with ${provider}`);
  const base = (config.CDN_PURGE_API_BASE ?? API_BASES[provider]).replace(/\/+$/, "");
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const request = (tags: string[]): Request =>
    provider === "cloudflare"
      ? new Request(`${base}/zones/${encodeURIComponent(zone)}/purge_cache`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ tags }),
        })
      : new Request(`${base}/service/${encodeURIComponent(zone)}/purge`, {
          method: "POST",
          headers: { "fastly-key": token, "surrogate-key": tags.join(" ") },
        });

  /** One batch, tried up to 1 + backoffMs.length times. Never throws. */
  const purgeBatch = async (tags: string[]): Promise<boolean> => {
    for (let attempt = 0; ; attempt++) {
      const failure = await send(request(tags), timeoutMs);
      if (failure === null) return true;
      const retry = attempt < backoffMs.length;
      // The token is in the request headers only: never in what is logged.
      log.warn(retry ? "CDN purge failed; will retry" : "CDN purge failed; giving up", {
        provider,
        tags: tags.length,
        attempt: attempt + 1,
        error: failure,
      });
      if (!retry) return false;
      await Bun.sleep(backoffMs[attempt]!);
    }
  };

  return {
    provider,
    async purge(tags) {
      let ok = true;
      const size = TAGS_PER_REQUEST[provider];
      for (let i = 0; i < tags.length; i += size) {
        ok = (await purgeBatch(tags.slice(i, i + size))) && ok;
      }
      return ok;
    },
  };
}

/** Null when the provider accepted the purge (a 2xx), else a short reason. */
async function send(request: Request, timeoutMs: number): Promise<string | null> {
  try {
    const response = await fetch(request, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer().catch(() => undefined);
    return response.ok ? null : `provider answered ${response.status}`;
  } catch (error) {
    const name = (error as { name?: unknown } | null)?.name;
    if (name === "TimeoutError") return `no answer within ${timeoutMs} ms`;
    const code = String((error as { code?: unknown } | null)?.code ?? "");
    return code ? `request failed (${code})` : "request failed";
  }
}
