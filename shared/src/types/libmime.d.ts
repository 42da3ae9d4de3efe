declare module "libmime" {
  /** RFC 2047 encoded-word(s) of `data` (`Q` or `B`), each at most about `maxLength` long. */
  export function encodeWord(
    data: string,
    mimeWordEncoding?: "Q" | "B",
    maxLength?: number,
  ): string;
  /** Decodes every encoded-word in a header value. */
  export function decodeWords(value: string): string;
  const libmime: { encodeWord: typeof encodeWord; decodeWords: typeof decodeWords };
  export default libmime;
}
