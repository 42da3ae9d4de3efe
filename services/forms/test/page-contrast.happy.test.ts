import { describe, expect, test } from "bun:test";
import { contrastRatio, renderPage, textOn } from "../src/confirmations/pages.ts";

/** The confirmation pages' button text reads at WCAG AA (4.5:1) on any accent. */
describe("button text on the accent", () => {
  test("the default accent gets black text at 4.5:1 or more (not #111 at 4.2:1)", () => {
    const page = renderPage({ title: "t", heading: "h", message: "m", brand: "b" });
    expect(page).toContain("--accent: #1a73e8; --on-accent: #000000;");
    expect(contrastRatio("#1a73e8", "#111111")).toBeLessThan(4.5);
    expect(contrastRatio("#1a73e8", textOn("#1a73e8"))).toBeGreaterThanOrEqual(4.5);
  });

  test("every accent, on a grid of 4,096 colours and the grey ramp, reaches 4.5:1", () => {
    const hex = (n: number) => n.toString(16).padStart(2, "0");
    const accents: string[] = [];
    for (let r = 0; r < 256; r += 17)
      for (let g = 0; g < 256; g += 17)
        for (let b = 0; b < 256; b += 17) accents.push(`#${hex(r)}${hex(g)}${hex(b)}`);
    for (let v = 0; v < 256; v++) accents.push(`#${hex(v)}${hex(v)}${hex(v)}`);
    const failing = accents.filter((accent) => contrastRatio(accent, textOn(accent)) < 4.5);
    expect(failing).toEqual([]);
  });
});
