/**
 * Structured JSON logs, one line each. Never pass a key, a token, a secret or a form body.
 */
type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

let threshold: Level = (process.env.LOG_LEVEL as Level | undefined) ?? "info";
let silent = process.env.NODE_ENV === "test" && process.env.LOG_IN_TESTS !== "true";

function write(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (silent || ORDER[level] < ORDER[threshold]) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...fields });
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
    return !silent && ORDER[level] >= ORDER[threshold];
  },
  setLevel(level: Level) {
    threshold = level;
  },
  setSilent(value: boolean) {
    silent = value;
  },
};
