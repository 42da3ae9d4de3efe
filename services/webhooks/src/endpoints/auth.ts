import type { InsecureTargets } from "@newsroom/shared/config";
import type { FieldError } from "@newsroom/shared/errors";
import { open, seal } from "@newsroom/shared/secret-box";
import type { EndpointAuthIn } from "@newsroom/shared/webhook-endpoint-commands";
import type { WebhookEndpointRow } from "./model.ts";
import { checkEndpointUrl } from "./url-rules.ts";

/**
 * Headers an endpoint's own `headers` may not set: the signature's, the body's type (a receiver
 * must be able to trust them to come from us), and those that would break the request itself.
 */
export const RESERVED_HEADERS = new Set([
  "webhook-id",
  "webhook-timestamp",
  "webhook-signature",
  "content-type",
  "content-length",
  "transfer-encoding",
  "host",
  "connection",
]);

/** RFC 9110's token: what a header name may be made of. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** No line breaks or other control characters in a value (header injection). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** What the schema cannot say about an endpoint's `auth`: header names, values, the token URL. */
export function checkEndpointAuth(
  auth: EndpointAuthIn,
  options: { allowInsecureTargets: InsecureTargets },
): FieldError[] {
  if (auth.type === "bearer") {
    return HEADER_VALUE.test(auth.token)
      ? []
      : [{ field: "auth.token", reason: "invalid", message: "No line breaks in the token." }];
  }
  if (auth.type === "headers") {
    const errors: FieldError[] = [];
    for (const [name, value] of Object.entries(auth.headers)) {
      if (!HEADER_NAME.test(name)) {
        errors.push({
          field: `auth.headers.${name}`,
          reason: "invalid_header_name",
          message: "Not a header name.",
        });
      } else if (RESERVED_HEADERS.has(name.toLowerCase())) {
        errors.push({
          field: `auth.headers.${name}`,
          reason: "reserved_header",
          message: `${name} is set by the service on every request and cannot be replaced.`,
        });
      } else if (!HEADER_VALUE.test(value)) {
        errors.push({
          field: `auth.headers.${name}`,
          reason: "invalid_header_value",
          message: "No line breaks in a header's value.",
        });
      }
    }
    return errors;
  }
  const bad = checkEndpointUrl(auth.token_url, options);
  return bad ? [{ ...bad, field: "auth.token_url" }] : [];
}

/** The columns an endpoint's `auth` is stored in: its type, and the whole of it sealed. */
export function sealEndpointAuth(
  auth: EndpointAuthIn | undefined,
  key: Buffer,
): Pick<WebhookEndpointRow, "authType" | "authCiphertext"> {
  if (!auth) return { authType: null, authCiphertext: null };
  return { authType: auth.type, authCiphertext: seal(JSON.stringify(auth), key) };
}

/** An endpoint's `auth`, opened; null for an endpoint that has none. */
export function openEndpointAuth(
  endpoint: Pick<WebhookEndpointRow, "authCiphertext">,
  key: Buffer,
): EndpointAuthIn | null {
  return endpoint.authCiphertext
    ? (JSON.parse(open(endpoint.authCiphertext, key)) as EndpointAuthIn)
    : null;
}
