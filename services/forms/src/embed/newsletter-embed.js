/*
 * Newsletter sign-up forms, enhanced: a form carrying `data-newsletter` posts with fetch and
 * shows the outcome in place; without JavaScript the same form posts normally and comes back
 * (to its `redirect` field when that is on an allowed origin) with
 * `?newsletter=pending|invalid|subscribed|closed`, and `&newsletter_fields=email,consent` naming
 * what was wrong. No dependencies, no cookies.
 */
(() => {
  const MESSAGES = {
    pending: "Almost done: check your inbox and confirm your subscription.",
    subscribed: "You are subscribed.",
    confirmed: "Your subscription is confirmed.",
    invalid: "Please check your email address and tick the consent box.",
    closed: "This newsletter is not taking sign-ups at the moment.",
    busy: "Too many attempts. Please wait a minute and try again.",
    error: "Something went wrong. Please try again.",
  };
  /** What to fix, per field named by `newsletter_fields` or a 422's `error.fields`. */
  const FIELD_MESSAGES = {
    email: "Please check your email address.",
    consent: "Please tick the consent box.",
    human_check_token: "The check that you are a person did not pass. Please try again.",
    redirect: "This form's return address is not allowed; the site's owner can fix it.",
  };

  function uuid() {
    if (crypto.randomUUID) return crypto.randomUUID();
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 15) | 64;
    b[8] = (b[8] & 63) | 128;
    const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  function hidden(form, name) {
    let input = form.querySelector(`input[name="${name}"]`);
    if (!input) {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      form.appendChild(input);
    }
    return input;
  }

  function statusOf(form) {
    let element = form.querySelector("[data-newsletter-status]");
    if (!element) {
      element = document.createElement("p");
      element.setAttribute("data-newsletter-status", "");
      form.appendChild(element);
    }
    element.setAttribute("role", "status");
    element.setAttribute("aria-live", "polite");
    return element;
  }

  function show(form, key, fields) {
    const own = form.getAttribute(`data-newsletter-${key}`);
    const specific = (fields || []).map((field) => FIELD_MESSAGES[field]).filter(Boolean);
    statusOf(form).textContent =
      own || (key === "invalid" && specific.length > 0 ? specific.join(" ") : MESSAGES[key]);
    form.setAttribute("data-newsletter-state", key);
  }

  function keyOf(status, body) {
    if (status === 202) return body && body.status === "subscribed" ? "subscribed" : "pending";
    if (status === 422) return "invalid";
    if (status === 404) return "closed";
    if (status === 429) return "busy";
    return "error";
  }

  function fresh(form) {
    hidden(form, "submission_id").value = uuid();
    hidden(form, "started_at").value = String(Date.now());
  }

  function enhance(form) {
    if (form.hasAttribute("data-newsletter-ready")) return;
    form.setAttribute("data-newsletter-ready", "");
    if (!hidden(form, "submission_id").value) hidden(form, "submission_id").value = uuid();
    if (!hidden(form, "started_at").value) hidden(form, "started_at").value = String(Date.now());
    const query = new URLSearchParams(window.location.search);
    const outcome = query.get("newsletter");
    const named = (query.get("newsletter_fields") || "").split(",");
    if (outcome && MESSAGES[outcome]) show(form, outcome, named);

    form.addEventListener("submit", async (event) => {
      if (!window.fetch || !window.URLSearchParams) return;
      event.preventDefault();
      const button = form.querySelector('button:not([type]), [type="submit"]');
      if (button) button.disabled = true;
      form.setAttribute("aria-busy", "true");
      let key = "error";
      let fields = [];
      try {
        const response = await fetch(form.action, {
          method: "POST",
          body: new URLSearchParams(new FormData(form)),
          headers: { Accept: "application/json" },
          credentials: "omit",
          mode: "cors",
          cache: "no-store",
        });
        const body = [202, 422].includes(response.status) ? await response.json() : null;
        key = keyOf(response.status, body);
        if (key === "invalid") fields = (body?.error?.fields || []).map((f) => f.field);
      } catch (_error) {
        key = "error";
      }
      show(form, key, fields);
      if (key === "pending" || key === "subscribed") fresh(form);
      form.removeAttribute("aria-busy");
      if (button) button.disabled = false;
    });
  }

  function init() {
    for (const form of document.querySelectorAll("form[data-newsletter]")) enhance(form);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
