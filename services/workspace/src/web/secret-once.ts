import { type Html, html } from "@newsroom/shared/html";
import { Elysia } from "elysia";

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

const COPY_SCRIPT = `document.querySelectorAll("[data-copy]").forEach(function (button) {
  var field = document.getElementById(button.getAttribute("data-copy"));
  var status = document.getElementById(button.getAttribute("data-copy") + "-copied");
  if (!field) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    field.select();
    var done = function () { status.textContent = "Copied."; };
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
