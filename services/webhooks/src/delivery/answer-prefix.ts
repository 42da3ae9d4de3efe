/** How much of a receiver's answer the attempt details keep: the first 1 KiB. */
export const ANSWER_PREFIX_BYTES = 1024;

/**
 * The kept part of an answer's body as text: at most 1 KiB, invalid UTF-8 (and NUL, which
 * PostgreSQL text cannot hold) replaced by U+FFFD; null for an empty body.
 */
export function answerPrefixText(bytes: Uint8Array): string | null {
  if (bytes.byteLength === 0) return null;
  const text = new TextDecoder("utf-8", { fatal: false }).decode(
    bytes.subarray(0, ANSWER_PREFIX_BYTES),
  );
  return text.replaceAll("\u0000", "\uFFFD");
}

/** Collects the first bytes of the chunks read, up to 1 KiB. */
export class AnswerPrefix {
  private readonly bytes = new Uint8Array(ANSWER_PREFIX_BYTES);
  private length = 0;

  add(chunk: Uint8Array): void {
    const room = ANSWER_PREFIX_BYTES - this.length;
    if (room <= 0) return;
    const part = chunk.subarray(0, room);
    this.bytes.set(part, this.length);
    this.length += part.byteLength;
  }

  text(): string | null {
    return answerPrefixText(this.bytes.subarray(0, this.length));
  }
}
