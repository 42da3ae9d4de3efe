/**
 * Logs, one line each: JSON (LOG_FORMAT=json, the default) for machines, or a short line for a
 * person at a terminal (`pretty`). Never pass a key, a token, a secret or a form body. While a
 * span is active (tracing on), a line carries its `trace_id` and `span_id`.
 */
import { currentTraceIds } from "./tracing/index.ts";

type Level = "debug" | "info" | "warn" | "error";
export type LogFormat = "json" | "pretty";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

let threshold: Level = (process.env.LOG_LEVEL as Level | undefined) ?? "info";
let format: LogFormat = process.env.LOG_FORMAT === "pretty" ? "pretty" : "json";
let silent = process.env.NODE_ENV === "test" && process.env.LOG_IN_TESTS !== "true";
/** Lines kept for a test that reads what was logged (see `log.capture`). */
let captured: string[] | null = null;

function write(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if ((silent && !captured) || ORDER[level] < ORDER[threshold]) return;
  const time = new Date();
  const ids = currentTraceIds();
  if (ids) fields = { ...fields, ...ids };
  const line =
    format === "json"
      ? JSON.stringify({ time: time.toISOString(), level, message, ...fields })
      : prettyLine(time, level, message, fields);
  captured?.push(line);
  if (silent) return;
  if (level === "error" || level === "warn") process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
}

/**
 * `12:04:05 GET /v1/public/newsroom 200 3.1 ms` for a request (the edge's `request` line),
 * `12:04:05 warn message key=value` otherwise.
 */
function prettyLine(time: Date, level: Level, message: string, fields: Record<string, unknown>) {
  const clock = time.toTimeString().slice(0, 8);
  if (message === "request") {
    return `${clock} ${fields.method} ${fields.path} ${fields.status} ${fields.duration_ms} ms`;
  }
  const details = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`);
  return [clock, level, message, ...details].join(" ");
}

export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => write("debug", message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write("info", message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write("warn", message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write("error", message, fields),
  /** Whether a line at this level would be written (skip building fields when not). */
  enabled(level: Level): boolean {
    return (!silent || captured !== null) && ORDER[level] >= ORDER[threshold];
  },
  /** For tests: keeps every line written from now until `stop()`, even while silent. */
  capture(): { lines: string[]; stop(): void } {
    const lines: string[] = [];
    captured = lines;
    return {
      lines,
      stop() {
        if (captured === lines) captured = null;
      },
    };
  },
  setLevel(level: Level) {
    threshold = level;
  },
  setFormat(value: LogFormat) {
    format = value;
  },
  setSilent(value: boolean) {
    silent = value;
  },
};
