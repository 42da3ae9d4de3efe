/**
 * The one way a test waits for something that happens in the background: a delivery, a cache
 * drop, a port that opens. It polls and, at its deadline, throws an error naming what it waited
 * for and what it last saw; it never returns a value that did not pass.
 */

export interface EventuallyOptions {
  /** What is awaited, in words: "the delivery record", "port 4222 to open". */
  message: string;
  /** Deadline for the whole wait, the reads included (default 10 s). */
  timeoutMs?: number;
  /** Pause between reads (default 25 ms). */
  everyMs?: number;
}

/** A value that counts as done when no check is given: anything but undefined, null, false, 0 or "". */
export type Present<T> = Exclude<T, undefined | null | false | 0 | "">;

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_EVERY_MS = 25;

/** Reads until the value is present (truthy); returns it. */
export function eventually<T>(
  read: () => T | Promise<T>,
  options: EventuallyOptions,
): Promise<Present<T>>;
/** Reads until `check` accepts the value; returns it. */
export function eventually<T, U extends T>(
  read: () => T | Promise<T>,
  check: (value: T) => value is U,
  options: EventuallyOptions,
): Promise<U>;
export function eventually<T>(
  read: () => T | Promise<T>,
  check: (value: T) => boolean,
  options: EventuallyOptions,
): Promise<T>;
export async function eventually<T>(
  read: () => T | Promise<T>,
  checkOrOptions: ((value: T) => boolean) | EventuallyOptions,
  maybeOptions?: EventuallyOptions,
): Promise<T> {
  const check = typeof checkOrOptions === "function" ? checkOrOptions : (value: T) => !!value;
  const options = (typeof checkOrOptions === "function" ? maybeOptions : checkOrOptions)!;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const everyMs = options.everyMs ?? DEFAULT_EVERY_MS;
  const deadline = Date.now() + timeoutMs;
  let last: { value: T } | { error: unknown } | { pending: true } | null = null;

  for (;;) {
    const outcome = await beforeDeadline(read, deadline);
    if ("value" in outcome) {
      try {
        if (check(outcome.value)) return outcome.value;
        last = outcome;
      } catch (error) {
        last = { error };
      }
    } else {
      last = outcome;
    }
    const left = deadline - Date.now();
    if (left <= 0) break;
    await Bun.sleep(Math.min(everyMs, left));
  }

  const seen =
    last === null
      ? "nothing was read"
      : "pending" in last
        ? "the last read had not answered"
        : "error" in last
          ? `the last read failed: ${describe(last.error)}`
          : `the last value was ${describe(last.value)}`;
  throw new Error(`waited ${timeoutMs} ms for ${options.message}; ${seen}`, {
    cause: last && "error" in last ? last.error : undefined,
  });
}

/** One read, given at most until the deadline to settle (at least one try even past it). */
async function beforeDeadline<T>(
  read: () => T | Promise<T>,
  deadline: number,
): Promise<{ value: T } | { error: unknown } | { pending: true }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<{ pending: true }>((resolve) => {
    timer = setTimeout(() => resolve({ pending: true }), Math.max(0, deadline - Date.now()));
  });
  const settled = (async () => {
    try {
      return { value: await read() };
    } catch (error) {
      return { error };
    }
  })();
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(thing: unknown): string {
  const text =
    thing instanceof Error ? `${thing.name}: ${thing.message}` : Bun.inspect(thing, { depth: 3 });
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
