import { type Html, html } from "@newsroom/shared/html";
import type { Visitor } from "../web/kit.ts";
import { csrfInput, field, layout, notice } from "../web/layout.ts";

/** The page where a person sees and revokes the applications they allowed. */
export const APPLICATIONS_PAGE_PATH = "/app/applications";

/** The scope in plain words, as the consent and device pages say it. */
export const SCOPE_WORDS = "approve and reject stories waiting for approval, in your name";

export interface ConsentOrganization {
  id: string;
  name: string;
}

/** The organization select: the organizations where the person may decide for this application. */
function organizationSelect(organizations: ConsentOrganization[]): Html {
  return html`<div class="field">
  <label for="field-organization">Organization</label>
  <select id="field-organization" name="organization">${organizations.map(
    (org) => html`<option value="${org.id}">${org.name}</option>`,
  )}</select>
</div>`;
}

/**
 * What the application asks, for which organization: Allow or Deny. `hidden` are the request's
 * parameters, posted back as they came.
 */
export function consentPage(
  who: Visitor,
  options: {
    action: string;
    clientName: string;
    organizations: ConsentOrganization[];
    hidden: Record<string, string>;
    /** Said when the person may not allow it (only Deny is offered). */
    refusal?: string;
    userCode?: string;
  },
): Html {
  const hidden = Object.entries(options.hidden).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  const canAllow = !options.refusal && options.organizations.length > 0;
  return layout(
    who,
    `Allow ${options.clientName}?`,
    html`${options.refusal ? notice("error", options.refusal) : ""}
${options.userCode ? html`<p>Check that your device shows the code <strong class="code">${options.userCode}</strong>.</p>` : ""}
<p><strong>${options.clientName}</strong> asks to ${SCOPE_WORDS}${
      options.organizations.length === 1
        ? html` in <strong>${options.organizations[0]!.name}</strong>`
        : ""
    }.</p>
<p>It can do this for as long as you keep this right in the organization, until you revoke it
under <a href="${APPLICATIONS_PAGE_PATH}">Applications you allowed</a>. It cannot publish, edit or
read anything else.</p>
<form method="post" action="${options.action}">${csrfInput(who)}${hidden}
  ${canAllow ? organizationSelect(options.organizations) : ""}
  ${canAllow ? html`<button type="submit" name="decision" value="allow">Allow</button>` : ""}
  <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`,
  );
}

/** The device page without a code: where a person types the code their device shows. */
export function deviceCodePage(
  who: Visitor,
  options: { userCode?: string; error?: string } = {},
): Html {
  return layout(
    who,
    "Connect a device",
    html`<p>Enter the code your command-line tool or device shows.</p>
<form method="get" action="/app/device" novalidate>
  ${field({
    name: "user_code",
    label: "Code",
    value: options.userCode,
    error: options.error,
    hint: "Eight letters, such as WDJB-MJHT.",
    autocomplete: "off",
    required: true,
    extra: html` autocapitalize="characters" spellcheck="false" maxlength="12"`,
  })}
  <button type="submit">Continue</button>
</form>`,
  );
}

/** The answer once a person allowed or denied a device. */
export function deviceDonePage(who: Visitor, clientName: string, allowed: boolean): Html {
  return layout(
    who,
    allowed ? "Device connected" : "Request denied",
    allowed
      ? html`<p>You allowed <strong>${clientName}</strong>. Go back to your device: it continues on its own.</p>
<p><a href="${APPLICATIONS_PAGE_PATH}">Applications you allowed</a></p>`
      : html`<p>You denied <strong>${clientName}</strong>. Nothing was connected.</p>`,
  );
}

/** An authorization request that cannot be sent back to the application (RFC 6749 §4.1.2.1). */
export function authorizeErrorPage(who: Visitor | null, message: string): Html {
  return layout(
    who,
    "This authorization request cannot be used",
    html`${notice("error", message)}
<p>Go back to the application and start again, or tell its makers.</p>
<p><a href="/app/">Back to the workspace</a></p>`,
  );
}
