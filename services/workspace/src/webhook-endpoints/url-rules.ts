import { isIP } from "node:net";
import type { FieldError } from "@newsroom/shared/errors";

const PRIVATE_SUFFIXES = [".local", ".internal", ".localhost", ".localdomain", ".home.arpa"];
const HOST_SHAPE = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * The spec's endpoint rules: https, a public host name, the default port. IP literals,
 * localhost and private names are refused. With `allowInsecureTargets` (tests only)
 * `http://127.0.0.1:<port>` is accepted as well.
 */
export function checkEndpointUrl(
  raw: string,
  options: { allowInsecureTargets: boolean },
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
  if (options.allowInsecureTargets && url.protocol === "http:" && url.hostname === "127.0.0.1") {
    return null;
  }
  if (url.protocol !== "https:") {
    return { field: "url", reason: "https_required", message: "The URL must use https." };
  }
  if (url.port !== "") {
    return {
      field: "url",
      reason: "port_not_allowed",
      message: "Only the default port is allowed.",
    };
  }
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (isIP(host.replace(/^\[|\]$/g, "")) !== 0) {
    return {
      field: "url",
      reason: "ip_address_not_allowed",
      message: "Use a host name, not an IP address.",
    };
  }
  if (host === "localhost" || PRIVATE_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
    return { field: "url", reason: "private_host", message: "The host name must be public." };
  }
  if (!HOST_SHAPE.test(host)) {
    return { field: "url", reason: "invalid_host", message: "The host name must be public." };
  }
  return null;
}
