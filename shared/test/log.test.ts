import { afterEach, describe, expect, test } from "bun:test";
import { edge } from "../src/http/edge.ts";
import { log } from "../src/log.ts";

/** LOG_FORMAT: one JSON object a line for machines, one short line for a person. */
const handle = edge(() => new Response("ok"), { trustedProxies: "" });

async function linesOf(format: "json" | "pretty", work: () => Promise<unknown> | unknown) {
  log.setFormat(format);
  const capture = log.capture();
  try {
    await work();
  } finally {
    capture.stop();
  }
  return capture.lines;
}

afterEach(() => log.setFormat("json"));

describe("log format", () => {
  test("json: a request is one JSON object with its fields", async () => {
    const [line] = await linesOf("json", () =>
      handle(new Request("http://localhost/v1/public/newsroom?key=secret")),
    );
    const entry = JSON.parse(line!);
    expect(entry).toMatchObject({
      level: "info",
      message: "request",
      method: "GET",
      path: "/v1/public/newsroom",
      status: 200,
    });
    expect(entry.request_id).toBeString();
  });

  test("pretty: a request is a short line without JSON or the query", async () => {
    const [line] = await linesOf("pretty", () =>
      handle(new Request("http://localhost/v1/public/newsroom?key=secret")),
    );
    expect(line).toMatch(/^\d\d:\d\d:\d\d GET \/v1\/public\/newsroom 200 [\d.]+ ms$/);
  });

  test("pretty: other lines show level, message and fields", async () => {
    const [line] = await linesOf("pretty", () =>
      log.warn("database unavailable", { service: "forms", attempts: 2 }),
    );
    expect(line).toMatch(/^\d\d:\d\d:\d\d warn database unavailable service=forms attempts=2$/);
  });
});

describe("readiness probes", () => {
  test("GET /health/ready is logged at debug only, other requests at info", async () => {
    const lines = await linesOf("json", async () => {
      await handle(new Request("http://localhost/health/ready"));
      await handle(new Request("http://localhost/health"));
    });
    expect(lines.map((line) => JSON.parse(line).path)).toEqual(["/health"]);
  });
});
