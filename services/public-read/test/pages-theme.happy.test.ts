import { describe, expect, test } from "bun:test";
import {
  AA_TEXT,
  BACKGROUND,
  contrastRatio,
  DEFAULT_ACCENT,
  readableAccent,
  TEXT,
  textOn,
  themeOf,
} from "../src/pages/theme.ts";

describe("a site's accent on its pages (WCAG AA)", () => {
  test("contrast ratios as WCAG computes them", () => {
    expect(contrastRatio("#000000", "#ffffff")).toBeCloseTo(21, 5);
    expect(contrastRatio("#ffffff", "#ffffff")).toBeCloseTo(1, 5);
    expect(contrastRatio("#777777", "#ffffff")).toBeCloseTo(4.48, 2);
    expect(contrastRatio(TEXT, BACKGROUND)).toBeGreaterThanOrEqual(AA_TEXT);
  });

  test("an accent that passes is kept as given", () => {
    expect(readableAccent("#123456")).toBe("#123456");
    expect(readableAccent("#1D4ED8")).toBe("#1d4ed8");
  });

  test("an accent that fails is darkened, same hue, until it reaches 4.5:1", () => {
    for (const accent of ["#ffcc00", "#7fdbff", "#ffffff", "#ff4136", "#abc", "#777777"]) {
      const readable = readableAccent(accent);
      expect(readable).not.toBe(accent);
      expect(contrastRatio(readable, BACKGROUND)).toBeGreaterThanOrEqual(AA_TEXT);
    }
    // Just past the line, not much darker than needed.
    expect(contrastRatio(readableAccent("#777777"), BACKGROUND)).toBeLessThan(5);
  });

  test("something that is not a colour gives the default accent", () => {
    expect(readableAccent("red; background:url(x)")).toBe(DEFAULT_ACCENT);
    expect(themeOf(null).accent).toBe(DEFAULT_ACCENT);
  });

  test("text on the accent (buttons) is black or white, whichever passes", () => {
    for (const accent of ["#ffcc00", "#123456", "#00ff00", "#777777", "#000000"]) {
      const theme = themeOf(accent);
      expect(contrastRatio(theme.onAccent, theme.accent)).toBeGreaterThanOrEqual(AA_TEXT);
    }
    expect(textOn("#000000")).toBe("#ffffff");
    expect(textOn("#ffffff")).toBe("#000000");
  });
});
