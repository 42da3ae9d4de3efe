import { notFound } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import { backTo } from "../confirmations/newsletter-pages.ts";
import { type PageContent, pageResponse } from "../confirmations/pages.ts";
import { unsubscribePageOperation, unsubscribePostOperation } from "../contract.ts";
import type { FormsDeps } from "../deps.ts";
import { houseNewsroomUrl } from "../newsletter/origins.ts";
import { bodyKindOf, readBody } from "../request/body.ts";
import { acceptsJson, guarded, json, NO_STORE } from "../request/respond.ts";
import { DIGEST_LIST, describeUnsubscribe, type LeavableList, unsubscribeFrom } from "./service.ts";

/** The unsubscribe pages of one list: what they say, where they lead back to. */
export interface UnsubscribePages {
  list: LeavableList;
  /** Who the pages speak for. */
  brand: string;
  /** The page's heading and title before the button: "Unsubscribe from …". */
  heading: string;
  /** What the button stops. */
  message: string;
  /** Where a link that is not valid came from. */
  invalid: string;
  /** The unsubscribed page's message. */
  unsubscribed: string;
  /** The unsubscribed page's link back. */
  back(deps: FormsDeps): string | null;
  detail: { page: typeof unsubscribePageOperation; post: typeof unsubscribePostOperation };
}

export const DIGEST_UNSUBSCRIBE_PAGES: UnsubscribePages = {
  list: DIGEST_LIST,
  brand: "Weekly digest",
  heading: "Unsubscribe from the weekly digest",
  message: "Press the button and the digest stops coming to the address this link was sent to.",
  invalid: "Open the unsubscribe link from a digest email again.",
  unsubscribed:
    "The weekly digest no longer comes to this address. You can subscribe again any time.",
  back: (deps) => houseNewsroomUrl(deps.config),
  detail: { page: unsubscribePageOperation, post: unsubscribePostOperation },
};

function invalidPage(pages: UnsubscribePages): PageContent {
  return {
    title: "Link not valid",
    heading: "This link is not valid",
    message: pages.invalid,
    brand: pages.brand,
  };
}

function unsubscribedPage(deps: FormsDeps, pages: UnsubscribePages): PageContent {
  return {
    title: "Unsubscribed",
    heading: "You are unsubscribed",
    message: pages.unsubscribed,
    brand: pages.brand,
    back: backTo(pages.back(deps)),
  };
}

/**
 * A list's unsubscribe link (the digest's unless `pages` says another). GET shows a page with
 * one button and changes nothing; POST unsubscribes: the page's button (`t` in the body) and
 * RFC 8058 one-click from mail providers (`List-Unsubscribe=One-Click` in the body, the token in
 * the link's query). Neither needs email to be configured and neither is rate limited: tokens
 * are signed, so guessing one is hopeless, and mail providers send many one-click requests from
 * a few addresses.
 */
export function unsubscribeRoutes(deps: FormsDeps, pages = DIGEST_UNSUBSCRIBE_PAGES) {
  const path = pages.list.links.path;
  return new Elysia()
    .get(path, ({ request }) => unsubscribePage(deps, pages, request), {
      detail: pages.detail.page,
    })
    .post(path, ({ request }) => unsubscribe(deps, pages, request), {
      parse: "none",
      detail: pages.detail.post,
    });
}

async function unsubscribePage(
  deps: FormsDeps,
  pages: UnsubscribePages,
  request: Request,
): Promise<Response> {
  const token = new URL(request.url).searchParams.get("t") ?? "";
  const state = await describeUnsubscribe(deps, token, pages.list);
  if (state === "invalid") return pageResponse(invalidPage(pages), 404);
  if (state === "unsubscribed") return pageResponse(unsubscribedPage(deps, pages), 200);
  return pageResponse(
    {
      title: pages.heading,
      heading: pages.heading,
      message: pages.message,
      brand: pages.brand,
      form: { action: pages.list.links.path, token, button: "Unsubscribe" },
    },
    200,
  );
}

/** The token: the link's query `t` (one-click), else the body's `t` (the page's button). */
async function tokenOf(request: Request): Promise<string> {
  const fromQuery = new URL(request.url).searchParams.get("t");
  if (fromQuery) return fromQuery;
  if (!bodyKindOf(request)) return "";
  const body = await readBody(request);
  const raw = Object.hasOwn(body.fields, "t") ? body.fields.t : undefined;
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return typeof value === "string" ? value.trim() : "";
}

function unsubscribe(deps: FormsDeps, pages: UnsubscribePages, request: Request) {
  const wantsJson = acceptsJson(request);
  return guarded(request, { ...NO_STORE }, async () => {
    const outcome = await unsubscribeFrom(deps, await tokenOf(request), pages.list);
    if (outcome === "invalid") {
      if (wantsJson) throw notFound("No such unsubscribe link.");
      return pageResponse(invalidPage(pages), 404);
    }
    return wantsJson
      ? json({ status: "unsubscribed" }, 200)
      : pageResponse(unsubscribedPage(deps, pages), 200);
  });
}
