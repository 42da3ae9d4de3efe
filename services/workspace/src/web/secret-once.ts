import { createHmac } from "node:crypto";
import { type Html, html } from "@newsroom/shared/html";
import { open, seal } from "@newsroom/shared/secret-box";
import { Elysia } from "elysia";
import { readCookies } from "./cookies.ts";

/**
 * A secret shown once (an API key, an endpoint's signing secret): a read-only field that can be
 * selected and copied by hand, and a copy button that the script below reveals and works.
 */
export function secretOnce(options: { id: string; label: string; secret: string }): Html {
  return html`<div class="field secret">
  <label for="${options.id}">${options.label}</label>
  <p class="hint" id="${options.id}-hint">Copy it now and keep it safe: it will not be shown
  again.</p>
  <input id="${options.id}" type="text" readonly value="${options.secret}" autocomplete="off"
    spellcheck="false" aria-describedby="${options.id}-hint">
  <button type="button" class="secondary" data-copy="${options.id}" hidden>Copy</button>
  <span role="status" id="${options.id}-copied"></span>
</div>`;
}

/**
 * A creation answers 303 to a page that shows the new secret once: the secret rides there
 * sealed in a short-lived cookie bound to the session and to what was created, and that page
 * deletes it. A reload, another tab or another session finds no secret and creates nothing.
 */
export const SHOWN_ONCE_COOKIE = "nr_shown_once";
const SHOWN_ONCE_SECONDS = 300;

interface HandedOver {
  session: string;
  subject: string;
  secret: string;
  until: number;
}

export function shownOnce(
  secretsKey: Buffer,
  cookie: (name: string, value: string, maxAge?: number) => string,
) {
  const key = createHmac("sha256", secretsKey).update("workspace shown-once secrets").digest();
  return {
    /** The Set-Cookie that carries `secret` to the page of `subject` (such as `key:{id}`). */
    handOver(session: string, subject: string, secret: string, now: Date): string {
      const sealed: HandedOver = {
        session,
        subject,
        secret,
        until: now.getTime() + SHOWN_ONCE_SECONDS * 1000,
      };
      const value = Buffer.from(seal(JSON.stringify(sealed), key), "base64").toString("base64url");
      return cookie(SHOWN_ONCE_COOKIE, value, SHOWN_ONCE_SECONDS);
    },

    /** The secret handed over to this session for `subject`, if it is still there; null after. */
    take(request: Request, session: string, subject: string, now: Date): string | null {
      const value = readCookies(request.headers.get("cookie")).get(SHOWN_ONCE_COOKIE);
      if (!value) return null;
      try {
        const found = JSON.parse(
          open(Buffer.from(value, "base64url").toString("base64"), key),
        ) as HandedOver;
        const fits =
          found.session === session && found.subject === subject && found.until > now.getTime();
        return fits ? found.secret : null;
      } catch {
        return null;
      }
    },

    /** Deletes the cookie: the page that shows the secret sends it, as does the one that does not. */
    spent: () => cookie(SHOWN_ONCE_COOKIE, "", 0),
  };
}

/** The page of a secret already shown: it is not shown again. */
export function secretGone(what: string, back: { href: string; label: string }): Html {
  return html`<p>${what} was shown once, when it was made, and is not shown again. If it was not
kept, make a new one and remove the old one.</p>
<p><a href="${back.href}">${back.label}</a></p>`;
}

const COPY_SCRIPT = `document.querySelectorAll("[data-copy]").forEach(function (button) {
  var field = document.getElementById(button.getAttribute("data-copy"));
  var status = document.getElementById(button.getAttribute("data-copy") + "-copied");
  if (!field) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    field.select();
    var done = function () { button.textContent = "Copied"; status.textContent = "Copied."; };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(field.value).then(done, function () {
        status.textContent = "Select the text and copy it.";
      });
    } else if (document.execCommand("copy")) {
      done();
    }
  });
});
`;

export const COPY_SCRIPT_PATH = "/app/copy-button.js";

/** The page's script tag; such a page allows the app's own scripts (`allowOwnScripts`). */
export const copyScriptTag = html`<script src="${COPY_SCRIPT_PATH}" defer></script>`;

/** Pages load no script but this one, from the app itself, on the pages that show a secret. */
export function allowOwnScripts(response: Response): Response {
  const policy = response.headers.get("content-security-policy");
  if (policy) response.headers.set("content-security-policy", `${policy}; script-src 'self'`);
  return response;
}

export function secretOnceWebRoutes() {
  return new Elysia().get(
    COPY_SCRIPT_PATH,
    () =>
      new Response(COPY_SCRIPT, {
        headers: {
          "content-type": "text/javascript; charset=utf-8",
          "cache-control": "public, max-age=3600",
          "x-content-type-options": "nosniff",
        },
      }),
  );
}
