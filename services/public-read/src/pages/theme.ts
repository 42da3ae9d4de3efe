/**
 * A newsroom's colours: its accent, made to pass WCAG AA. Links and headings are drawn in the
 * accent on the page background, and buttons show text on the accent, so the accent must reach
 * 4.5:1 against the background (it is darkened until it does), and the button text is black or
 * white, whichever contrasts more.
 */
export const BACKGROUND = "#ffffff";
export const TEXT = "#1a1a1a";
export const DEFAULT_ACCENT = "#1d4ed8";
/** WCAG 2.x AA for normal text. */
export const AA_TEXT = 4.5;

export interface Theme {
  accent: string;
  /** Text on the accent (buttons). */
  onAccent: string;
}

type Rgb = [number, number, number];

function parseHex(colour: string): Rgb | null {
  const match = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(colour.trim());
  if (!match) return null;
  const hex =
    match[1]!.length === 3 ? [...match[1]!].map((digit) => digit + digit).join("") : match[1]!;
  return [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as Rgb;
}

function toHex(rgb: Rgb): string {
  return `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, "0")).join("")}`;
}

function luminance([r, g, b]: Rgb): number {
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** The WCAG contrast ratio of two colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const la = luminance(parseHex(a) ?? [0, 0, 0]);
  const lb = luminance(parseHex(b) ?? [0, 0, 0]);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/**
 * The accent as given when it reaches 4.5:1 on the background, else the same hue darkened step
 * by step until it does (black at the end always does). Not a colour: the default accent.
 */
export function readableAccent(accent: string, background = BACKGROUND): string {
  const rgb = parseHex(accent);
  if (!rgb) return DEFAULT_ACCENT;
  for (let factor = 1; factor >= 0; factor -= 0.02) {
    const candidate = toHex(rgb.map((c) => c * factor) as Rgb);
    if (contrastRatio(candidate, background) >= AA_TEXT) return candidate;
  }
  return "#000000";
}

/** Black or white, whichever has more contrast on the colour. */
export function textOn(colour: string): string {
  return contrastRatio("#000000", colour) >= contrastRatio("#ffffff", colour)
    ? "#000000"
    : "#ffffff";
}

export function themeOf(accent: string | null): Theme {
  const readable = readableAccent(accent ?? DEFAULT_ACCENT);
  return { accent: readable, onAccent: textOn(readable) };
}
