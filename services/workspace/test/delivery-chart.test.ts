import { describe, expect, test } from "bun:test";
import { deliveryChart } from "../src/web/delivery-chart.ts";

describe("the delivery chart", () => {
  test("its figure has the caption last, as HTML allows (first or last child)", () => {
    const now = new Date("2026-11-26T12:30:00Z");
    const chart = deliveryChart(
      [{ hour: Date.parse("2026-11-26T11:00:00Z") / 3_600_000, status: "delivered", count: 3 }],
      now,
    ).value;
    const inside = chart.slice(chart.indexOf(">") + 1, chart.lastIndexOf("</figure>")).trim();
    expect(inside.startsWith("<svg")).toBe(true);
    expect(inside.endsWith("</figcaption>")).toBe(true);
    expect(inside.match(/<figcaption>/g)).toHaveLength(1);
  });
});
