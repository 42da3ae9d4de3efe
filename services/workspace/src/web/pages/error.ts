import { type Html, html } from "@newsroom/shared/html";
import type { Visitor } from "../kit.ts";
import { layout } from "../layout.ts";

const TITLES: Record<number, string> = {
  400: "That did not work",
  403: "Not allowed",
  404: "Not found",
  429: "Too many requests",
  503: "Temporarily unavailable",
};

/** The page of a refusal or failure; `message` is the error's, never internals. */
export function errorPage(who: Visitor | null, status: number, message: string): Html {
  const title = TITLES[status] ?? (status >= 500 ? "Something went wrong" : "That did not work");
  return layout(
    who,
    title,
    html`<p>${message}</p><p><a href="/app/">Back to your organizations</a></p>`,
  );
}
