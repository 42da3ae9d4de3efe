import { notFound } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import { backTo } from "../confirmations/newsletter-pages.ts";
import { type PageContent, pageResponse } from "../confirmations/pages.ts";
import { unsubscribePageOperation, unsubscribePostOperation } from "../contract.ts";
import type { FormsDeps } from "../deps.ts";
import { houseNewsroomUrl } from "../newsletter/origins.ts";
import { bodyKindOf, readBody } from "../request/body.ts";
import { acceptsJson, guarded, json, NO_STORE } from "../request/respond.ts";
import { UNSUBSCRIBE_PATH } from "./link.ts";
import { describeUnsubscribe, unsubscribeDigest } from "./service.ts";

const BRAND = "Weekly digest";

const INVALID_PAGE: PageContent = {
  title: "Link not valid",
  heading: "This link is not valid",
  message: "Open the unsubscribe link from a digest email again.",
  brand: BRAND,
};

function unsubscribedPage(deps: FormsDeps): PageContent {
  return {
    title: "Unsubscribed",
    heading: "You are unsubscribed",
    message: "The weekly digest no longer comes to this address. You can subscribe again any time.",
    brand: BRAND,
    back: backTo(houseNewsroomUrl(deps.config)),
  };
}

/**
 * The digest's unsubscribe link. GET shows a page with one button and changes nothing; POST
 * unsubscribes: the page's button (`t` in the body) and RFC 8058 one-click from mail providers
 * (`List-Unsubscribe=One-Click` in the body, the token in the link's query). Neither needs email
 * to be configured and neither is rate limited: tokens are signed, so guessing one is hopeless,
 * and mail providers send many one-click requests from a few addresses.
 */
export function unsubscribeRoutes(deps: FormsDeps) {
  return new Elysia()
    .get(UNSUBSCRIBE_PATH, ({ request }) => unsubscribePage(deps, request), {
      detail: unsubscribePageOperation,
    })
    .post(UNSUBSCRIBE_PATH, ({ request }) => unsubscribe(deps, request), {
      parse: "none",
      detail: unsubscribePostOperation,
    });
}

async function unsubscribePage(deps: FormsDeps, request: Request): Promise<Response> {
  const token = new URL(request.url).searchParams.get("t") ?? "";
  const state = await describeUnsubscribe(deps, token);
  if (state === "invalid") return pageResponse(INVALID_PAGE, 404);
  if (state === "unsubscribed") return pageResponse(unsubscribedPage(deps), 200);
  return pageResponse(
    {
      title: "Unsubscribe from the weekly digest",
      heading: "Unsubscribe from the weekly digest",
      message: "Press the button and the digest stops coming to the address this link was sent to.",
      brand: BRAND,
      form: { action: UNSUBSCRIBE_PATH, token, button: "Unsubscribe" },
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

function unsubscribe(deps: FormsDeps, request: Request): Promise<Response> {
  const wantsJson = acceptsJson(request);
  return guarded(request, { ...NO_STORE }, async () => {
    const outcome = await unsubscribeDigest(deps, await tokenOf(request));
    if (outcome === "invalid") {
      if (wantsJson) throw notFound("No such unsubscribe link.");
      return pageResponse(INVALID_PAGE, 404);
    }
    return wantsJson
      ? json({ status: "unsubscribed" }, 200)
      : pageResponse(unsubscribedPage(deps), 200);
  });
}
