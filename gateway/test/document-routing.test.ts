import { describe, expect, test } from "bun:test";
import { loadConfig } from "@newsroom/shared/config";
import { serviceForRequest } from "../src/routing.ts";

const config = loadConfig({
  PUBLIC_BASE_URL: "https://api.example.com",
  NEWSROOM_HOST: "https://api.example.com/newsrooms",
});
const route = (path: string, host: string | null = "api.example.com") =>
  serviceForRequest(path, host, config);

describe("robots.txt, sitemaps and feeds through the gateway", () => {
  test("on the service's own host: robots.txt, the house sitemap and its parts, the feeds", () => {
    for (const path of [
      "/robots.txt",
      "/sitemap.xml",
      "/sitemap-2.xml",
      "/newsroom/feed.xml",
      "/newsroom/feed.json",
      "/newsrooms/site/sitemap.xml",
      "/newsrooms/site/feed.json",
    ]) {
      expect(route(path), path).toBe("public-read");
    }
    for (const path of ["/sitemap-0.xml", "/sitemap-x.xml", "/sitemaps.xml", "/robots.txt/x"]) {
      expect(route(path), path).toBeNull();
    }
  });

  test("on a client's hostname: every one of them", () => {
    for (const path of ["/robots.txt", "/sitemap.xml", "/feed.xml", "/feed.json"]) {
      expect(route(path, "news.client.example"), path).toBe("public-read");
    }
  });
});

describe("uploaded images' public variants through the gateway", () => {
  test("/assets/… goes to public reads on every host that serves pages", () => {
    for (const host of ["api.example.com", "news.client.example", "localhost:3000", null]) {
      expect(route("/assets/0123456789abcdef0123-480.webp", host), String(host)).toBe(
        "public-read",
      );
    }
    expect(route("/assetsx/a.webp")).toBeNull();
  });
});
