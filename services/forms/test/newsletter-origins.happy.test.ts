import { describe, expect, test } from "bun:test";
import { allowedOrigins } from "../src/newsletter/origins.ts";

const config = { NEWSROOM_HOST: "https://news.example.com/newsrooms", HOUSE_ORG: "house" };

describe("origins allowed to post to an organization's newsletter", () => {
  test("its own website origins, its hosted newsroom and each active client hostname", () => {
    const allowed = allowedOrigins(
      config,
      ["https://www.client.example/"],
      [{ hostnames: ["news.client.example"] }],
      "client",
    );
    expect([...allowed].sort()).toEqual([
      "https://news.client.example",
      "https://news.example.com",
      "https://www.client.example",
    ]);
  });

  test("the house newsroom's pages (/newsroom on NEWSROOM_HOST's origin) post for HOUSE_ORG", () => {
    expect([...allowedOrigins(config, [], [], "house")]).toEqual(["https://news.example.com"]);
    expect([...allowedOrigins(config, [], [], "client")]).toEqual([]);
  });
});
