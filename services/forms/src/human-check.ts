import type { Config } from "@newsroom/shared/config";
import { ApiError } from "@newsroom/shared/errors";
import { log } from "@newsroom/shared/log";

/**
 * The human check behind `human_check_token`. `off`: nothing is checked (`skipped`); `test`:
 * exactly `test-pass` passes (refused in production by the config); `turnstile`: the provider's
 * siteverify answers.
 */
export type HumanCheckResult = "passed" | "failed" | "skipped";

export interface HumanCheck {
  readonly mode: Config["HUMAN_CHECK_MODE"];
  verify(token: string | undefined, clientIp: string): Promise<HumanCheckResult>;
}

export const TEST_PASS_TOKEN = "test-pass";
const TURNSTILE_VERIFY_URL = "https://challenges.cloudflare.com/turnstile/v0/siteverify";

export function openHumanCheck(
  config: Pick<Config, "HUMAN_CHECK_MODE" | "TURNSTILE_SECRET">,
  options: { verifyUrl?: string } = {},
): HumanCheck {
  const mode = config.HUMAN_CHECK_MODE;
  if (mode === "off") return { mode, verify: async () => "skipped" };
  if (mode === "test") {
    return { mode, verify: async (token) => (token === TEST_PASS_TOKEN ? "passed" : "failed") };
  }
  const secret = config.TURNSTILE_SECRET;
  const url = options.verifyUrl ?? TURNSTILE_VERIFY_URL;
  return {
    mode,
    async verify(token, clientIp) {
      if (!token) return "failed";
      if (!secret) throw new ApiError("forms_unavailable", "The human check is not configured.");
      const body = new URLSearchParams({ secret, response: token });
      if (clientIp !== "unknown") body.set("remoteip", clientIp);
      let answer: { success?: unknown };
      try {
        const response = await fetch(url, {
          method: "POST",
          body,
          signal: AbortSignal.timeout(5_000),
        });
        answer = (await response.json()) as { success?: unknown };
      } catch (error) {
        log.warn("human check provider unreachable", {
          error: error instanceof Error ? error.name : String(error),
        });
        throw new ApiError("forms_unavailable", "The human check is unavailable. Retry later.", {
          headers: { "retry-after": "60" },
        });
      }
      return answer.success === true ? "passed" : "failed";
    },
  };
}
