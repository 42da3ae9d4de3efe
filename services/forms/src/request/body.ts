import { ApiError } from "@newsroom/shared/errors";
import { readLimitedBody } from "@newsroom/shared/http/limited-body";

/** The largest form body read: 64 KiB. */
export const FORM_BODY_LIMIT = 64 * 1024;

export type BodyKind = "json" | "form";

/** A parsed body: fields by name, and whether it came as JSON or as form data. */
export interface ParsedBody {
  kind: BodyKind;
  fields: Record<string, unknown>;
}

/** A file part in multipart data: never a valid value for any field. */
export const FILE_PART = Object.freeze({ file: true });

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaTypeOf(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

export function bodyKindOf(request: Request): BodyKind | null {
  const type = mediaTypeOf(request);
  if (type === "application/json") return "json";
  if (type === "application/x-www-form-urlencoded" || type === "multipart/form-data") return "form";
  return null;
}

/**
 * Reads a JSON, urlencoded or multipart body of at most `limit` bytes. Anything else is 415
 * unsupported_body; a larger body is 413 body_too_large (reading stops at the limit); a body that
 * does not parse is 422 with the field `body`.
 */
export async function readBody(request: Request, limit = FORM_BODY_LIMIT): Promise<ParsedBody> {
  const kind = bodyKindOf(request);
  if (!kind) throw new ApiError("unsupported_body");
  const bytes = await readLimitedBody(
    request,
    limit,
    () => new ApiError("body_too_large", `The body may be at most ${limit} bytes (64 KiB).`),
  );
  if (kind === "json") return { kind, fields: parseJson(bytes) };
  const type = mediaTypeOf(request);
  if (type === "application/x-www-form-urlencoded") {
    const text = decodeUtf8(bytes);
    return { kind, fields: formFields(new URLSearchParams(text).entries()) };
  }
  let data: FormData;
  try {
    const contentType = request.headers.get("content-type") ?? "";
    data = await new Response(bytes, { headers: { "content-type": contentType } }).formData();
  } catch {
    throw unreadable("invalid_multipart", "The multipart body could not be parsed.");
  }
  const pairs: [string, unknown][] = [];
  for (const [name, value] of data.entries()) {
    pairs.push([name, typeof value === "string" ? value : FILE_PART]);
  }
  return { kind, fields: formFields(pairs) };
}

function unreadable(reason: string, message: string): ApiError {
  return new ApiError("validation_failed", message, {
    fields: [{ field: "body", reason, message }],
  });
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw unreadable("invalid_encoding", "The body is not valid UTF-8.");
  }
}

function parseJson(bytes: Uint8Array): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(decodeUtf8(bytes));
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw unreadable("invalid_json", "The body is not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw unreadable("invalid_type", "The JSON body must be an object.");
  }
  return value as Record<string, unknown>;
}

const KEY = /^([^[\].]+)(?:\[([^\]]*)\]|\.([^[\].]+))?$/;

/**
 * Form pairs to fields. `areas=a&areas=b`, `areas[]=a` and `areas[0]=a` make an array;
 * `stack[site]=x` and `stack.site=x` make a nested object; other names are kept as given.
 * Results have no prototype, so no name can reach `Object.prototype`.
 */
export function formFields(pairs: Iterable<[string, unknown]>): Record<string, unknown> {
  const fields: Record<string, unknown> = Object.create(null);
  for (const [key, value] of pairs) {
    const match = KEY.exec(key);
    if (!match) continue;
    const name = match[1]!;
    const sub = match[2] ?? match[3];
    if (sub === undefined) {
      const current = fields[name];
      if (current === undefined) fields[name] = value;
      else if (Array.isArray(current)) current.push(value);
      else if (isNested(current)) continue;
      else fields[name] = [current, value];
    } else if (sub === "" || /^\d+$/.test(sub)) {
      const current = fields[name];
      if (current === undefined) fields[name] = [value];
      else if (Array.isArray(current)) current.push(value);
      else if (!isNested(current)) fields[name] = [current, value];
    } else {
      let nested = fields[name];
      if (!isNested(nested)) {
        nested = Object.create(null);
        fields[name] = nested;
      }
      (nested as Record<string, unknown>)[sub] = value;
    }
  }
  return fields;
}

function isNested(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && value !== FILE_PART
  );
}
