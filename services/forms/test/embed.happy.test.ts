import { describe, expect, test } from "bun:test";
import { runInNewContext } from "node:vm";
import { newsletterOrg } from "./support/fixtures.ts";
import { address } from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms, org, server } = formsWorld({ org: {}, serve: true });

async function script() {
  const response = await fetch(`${server.url}/v1/public/newsletter/embed.js`);
  return { response, text: await response.text() };
}

describe("GET /v1/public/newsletter/embed.js", () => {
  test("is JavaScript, cached an hour, sets no cookie", async () => {
    const { response, text } = await script();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(text).toContain("form[data-newsletter]");
    expect(text).not.toContain("document.cookie");
    expect(text).not.toMatch(/\bimport\b|\brequire\(/);
    expect(text).toContain('credentials: "omit"');
    expect(() => new Function(text)).not.toThrow();
  });
});

/**
 * The smallest page the script needs: one form with inputs, a status element and a button. The
 * script runs as written; fetch is the real one against the service over HTTP, with the Origin
 * header a browser on the organization's site would add.
 */
function page(options: {
  action: string;
  email: string;
  attributes?: Record<string, string>;
  startedAt?: number;
}) {
  class Element {
    attributes = new Map<string, string>();
    textContent = "";
    disabled = false;
    setAttribute(name: string, value: string) {
      this.attributes.set(name, value);
    }
    getAttribute(name: string) {
      return this.attributes.get(name) ?? null;
    }
    hasAttribute(name: string) {
      return this.attributes.has(name);
    }
    removeAttribute(name: string) {
      this.attributes.delete(name);
    }
  }
  class Input extends Element {
    name = "";
    value = "";
    type = "text";
  }
  const input = (name: string, value: string) => Object.assign(new Input(), { name, value });
  const inputs: Input[] = [
    input("email", options.email),
    input("consent", "on"),
    input("fax", ""),
    input("started_at", String(options.startedAt ?? Date.now() - 10_000)),
  ];
  const button = new Element();
  const listeners = new Map<string, (event: unknown) => Promise<void>>();
  let status: Element | null = null;
  const form = Object.assign(new Element(), {
    action: options.action,
    querySelector(selector: string) {
      const name = /^input\[name="(.+)"\]$/.exec(selector)?.[1];
      if (name) return inputs.find((i) => i.name === name) ?? null;
      if (selector === "[data-newsletter-status]") return status;
      if (selector.includes("submit")) return button;
      return null;
    },
    appendChild(child: Element) {
      if (child instanceof Input) inputs.push(child);
      else status = child;
    },
    addEventListener(type: string, listener: (event: unknown) => Promise<void>) {
      listeners.set(type, listener);
    },
  });
  for (const [name, value] of Object.entries(options.attributes ?? {}))
    form.setAttribute(name, value);
  const requests: RequestInit[] = [];
  const browserFetch = (url: string, init: RequestInit) => {
    requests.push(init);
    const headers = new Headers(init.headers);
    headers.set("origin", org.origin);
    return fetch(url, { ...init, headers });
  };
  class FormDataOf {
    pairs: [string, string][];
    constructor(of: typeof form) {
      void of;
      this.pairs = inputs.map((i) => [i.name, i.value]);
    }
    [Symbol.iterator]() {
      return this.pairs[Symbol.iterator]();
    }
  }
  const document = {
    readyState: "complete",
    querySelectorAll: (selector: string) => (selector === "form[data-newsletter]" ? [form] : []),
    createElement: (tag: string) => (tag === "input" ? new Input() : new Element()),
    addEventListener() {},
  };
  const window = { fetch: browserFetch, URLSearchParams, location: { search: "" } };
  return {
    context: {
      window,
      document,
      fetch: browserFetch,
      URLSearchParams,
      FormData: FormDataOf,
      crypto,
    },
    form,
    inputs,
    requests,
    status: () => status?.textContent,
    async submit() {
      let prevented = false;
      await listeners.get("submit")!({
        preventDefault() {
          prevented = true;
        },
      });
      return prevented;
    },
  };
}

describe("the script on an organization's page", () => {
  test("posts with fetch and shows the pending outcome in place", async () => {
    const { text } = await script();
    const email = address("embed");
    const p = page({ action: `${server.url}/v1/public/newsletter/${org.slug}/subscribe`, email });
    runInNewContext(text, p.context);
    const id = p.inputs.find((i) => i.name === "submission_id")?.value;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    expect(await p.submit()).toBe(true);
    expect(p.status()).toBe("Almost done: check your inbox and confirm your subscription.");
    expect(p.form.getAttribute("data-newsletter-state")).toBe("pending");
    expect(p.requests[0]).toMatchObject({ method: "POST", credentials: "omit", mode: "cors" });
    expect(new Headers(p.requests[0]!.headers).get("accept")).toBe("application/json");
    expect(await ses.to(email)).toHaveLength(1);
    // A fresh submission id for the next sign-up from the same page.
    expect(p.inputs.find((i) => i.name === "submission_id")?.value).not.toBe(id);
  });

  test("shows the site's own message and the invalid outcome", async () => {
    const { text } = await script();
    const p = page({
      action: `${server.url}/v1/public/newsletter/${org.slug}/subscribe`,
      email: "not an address",
      attributes: { "data-newsletter-invalid": "Bitte prüfen Sie Ihre Adresse." },
    });
    runInNewContext(text, p.context);
    await p.submit();
    expect(p.status()).toBe("Bitte prüfen Sie Ihre Adresse.");
    expect(p.form.getAttribute("data-newsletter-state")).toBe("invalid");
  });

  test("shows closed when the organization's newsletter is off", async () => {
    const closed = await newsletterOrg(forms.database.db, { enabled: false });
    const { text } = await script();
    const p = page({
      action: `${server.url}/v1/public/newsletter/${closed.slug}/subscribe`,
      email: address(),
    });
    p.context.fetch = (url: string, init: RequestInit) => {
      const headers = new Headers(init.headers);
      headers.set("origin", closed.origin);
      return fetch(url, { ...init, headers });
    };
    p.context.window.fetch = p.context.fetch;
    runInNewContext(text, p.context);
    await p.submit();
    expect(p.form.getAttribute("data-newsletter-state")).toBe("closed");
  });
});
