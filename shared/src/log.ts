/**
 * Structured JSON logs, one line each. Never pass a key, a token, a secret or a form body.
 */
type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

let threshold: Level = (process.env.LOG_LEVEL as Level | undefined) ?? "info";
let silent = process.env.NODE_ENV === "test" && process.env.LOG_IN_TESTS !== "true";
/** Lines kept for a test that reads what was logged (see `log.capture`). */
let captured: string[] | null = null;

function write(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if ((silent && !captured) || ORDER[level] < ORDER[threshold]) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...fields });
  captured?.push(line);
  if (silent) return;
  if (level === "error" || level === "warn") process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
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
  setSilent(value: boolean) {
    silent = value;
  },
};
