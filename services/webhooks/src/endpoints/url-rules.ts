import { isIP } from "node:net";
import type { InsecureTargets } from "@newsroom/shared/config";
import type { FieldError } from "@newsroom/shared/errors";

const PRIVATE_SUFFIXES = [".local", ".internal", ".localhost", ".localdomain", ".home.arpa"];
const HOST_SHAPE = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** The receivers WEBHOOK_ALLOW_INSECURE_TARGETS opens: this machine, by address or by name. */
const LOCAL_TEST_HOSTS = ["127.0.0.1", "localhost"];

const LOCAL_HINT =
  "A receiver on this machine needs WEBHOOK_ALLOW_INSECURE_TARGETS=true (the default in development; refused in production and sandbox), which accepts http://127.0.0.1:<port> and http://localhost:<port>; WEBHOOK_INSECURE_TARGET_PORTS lists the ports it accepts.";

/**
 * The spec's endpoint rules: https, a public host name, the default port. IP literals,
 * localhost and private names are refused: deliveries leave the service for the internet, and a
 * tenant must not make it call inside its own network. With `allowInsecureTargets` (development
 * and tests) `http://127.0.0.1:<port>` and `http://localhost:<port>` are accepted as well: any
 * port for `true`, else only the ports listed.
 */
export function checkEndpointUrl(
  raw: string,
  options: { allowInsecureTargets: InsecureTargets },
): FieldError | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { field: "url", reason: "invalid_url", message: "Not a URL." };
  }
  if (url.username || url.password) {
    return { field: "url", reason: "credentials_in_url", message: "No credentials in the URL." };
  }
  const local = LOCAL_TEST_HOSTS.includes(url.hostname.toLowerCase());
  if (local && /^https?:$/.test(url.protocol) && isOpenPort(url, options.allowInsecureTargets)) {
    return null;
  }
  const hint = local ? ` ${LOCAL_HINT}` : "";
  if (url.protocol !== "https:") {
    return {
      field: "url",
      reason: "https_required",
      message: `The URL must use https: payloads are signed, not encrypted.${hint}`,
    };
  }
  if (url.port !== "") {
    return {
      field: "url",
      reason: "port_not_allowed",
      message: `Only the default port (443) is allowed.${hint}`,
    };
  }
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (isIP(host.replace(/^\[|\]$/g, "")) !== 0) {
    return {
      field: "url",
      reason: "ip_address_not_allowed",
      message: `Use a public host name, not an IP address.${hint}`,
    };
  }
  if (host === "localhost" || PRIVATE_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
    return {
      field: "url",
      reason: "private_host",
      message: `The host name must be public.${hint}`,
    };
  }
  if (!HOST_SHAPE.test(host)) {
    return { field: "url", reason: "invalid_host", message: "The host name must be public." };
  }
  return null;
}

/** Whether the switch opens this local URL's port (its scheme's default when none is written). */
function isOpenPort(url: URL, targets: InsecureTargets): boolean {
  if (typeof targets === "boolean") return targets;
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  return targets.includes(port);
}
