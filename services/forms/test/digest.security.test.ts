import { describe, expect, test } from "bun:test";
import { address, answerBytes, envelope, tokenIn } from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms } = formsWorld();

const HOUR = 3600_000;

/** A person's subscribe request, shown ten seconds before on the service's clock. */
const subscribe = (email: string) =>
  forms.post("/v1/public/newsletter/subscribe", {
    email,
    consent: true,
    ...envelope(forms.clock.now().getTime()),
  });

describe("enumeration", () => {
  test("new, pending, subscribed and throttled addresses get byte-identical answers", async () => {
    const fresh = address("new");
    const pending = address("pending");
    const subscribed = address("subscribed");
    const throttled = address("throttled");

    // Prepare the states an hour and more back, so only the throttled one is throttled now.
    await subscribe(pending);
    await subscribe(subscribed);
    await subscribe(throttled);
    expect(
      (
        await forms.post("/v1/public/newsletter/subscribe/confirm", {
          t: tokenIn((await ses.to(subscribed))[0]),
        })
      ).status,
    ).toBe(200);
    forms.clock.advance(HOUR + 1_000);
    try {
      await subscribe(throttled); // the day's second confirmation: the address is now throttled

      const answers = {
        new: await answerBytes(await subscribe(fresh)),
        pending: await answerBytes(await subscribe(pending)),
        subscribed: await answerBytes(await subscribe(subscribed)),
        throttled: await answerBytes(await subscribe(throttled)),
      };
      expect(answers.new).toContain("202");
      expect(answers.pending).toBe(answers.new);
      expect(answers.subscribed).toBe(answers.new);
      expect(answers.throttled).toBe(answers.new);

      expect(await ses.to(fresh)).toHaveLength(1);
      expect(await ses.to(pending)).toHaveLength(2);
      // Confirmation, welcome, and a new confirmation (which would answer confirmed).
      expect(await ses.to(subscribed)).toHaveLength(3);
      expect(await ses.to(throttled)).toHaveLength(2);
    } finally {
      forms.clock.advance(-(HOUR + 1_000));
    }
  });
});

describe("throttles per address", () => {
  test("at most one confirmation an hour and two a day", async () => {
    const email = address("throttle");
    const sent = async () => (await ses.to(email)).length;
    const start = forms.clock.now().getTime();
    const at = (ms: number) => forms.clock.advance(start + ms - forms.clock.now().getTime());
    try {
      await subscribe(email);
      await subscribe(email);
      expect(await sent()).toBe(1);

      at(HOUR - 60_000);
      await subscribe(email);
      expect(await sent()).toBe(1);

      at(HOUR + 60_000); // just past the hour
      await subscribe(email);
      expect(await sent()).toBe(2);

      at(3 * HOUR);
      await subscribe(email);
      expect(await sent()).toBe(2); // two in the last day already

      at(24 * HOUR - 60_000); // the first is still within the last day
      await subscribe(email);
      expect(await sent()).toBe(2);

      at(24 * HOUR + 30_000); // the first has left the day: one in the last day, none this hour
      await subscribe(email);
      expect(await sent()).toBe(3);

      at(24 * HOUR + 90_000); // within the hour of the last one
      await subscribe(email);
      expect(await sent()).toBe(3);
    } finally {
      at(0);
    }
  });

  test("every link of a throttled address still works until it expires", async () => {
    const email = address("links");
    await subscribe(email);
    forms.clock.advance(HOUR + 1_000);
    await subscribe(email);
    forms.clock.advance(-(HOUR + 1_000));
    const tokens = (await ses.to(email)).map(tokenIn);
    expect(tokens).toHaveLength(2);
    for (const t of tokens) {
      const response = await forms.post("/v1/public/newsletter/subscribe/confirm", { t });
      expect(await response.json()).toEqual({ status: "confirmed" });
    }
    // One welcome email, not two.
    expect((await ses.to(email)).filter((e) => e.subject.startsWith("Welcome"))).toHaveLength(1);
  });

  test("parallel subscribes of one address send one confirmation", async () => {
    const email = address("parallel");
    await Promise.all(Array.from({ length: 8 }, () => subscribe(email)));
    expect(await ses.to(email)).toHaveLength(1);
  });
});

describe("confirmation pages", () => {
  test("the page never caches, never frames, and sends no Referer with the token", async () => {
    const email = address("page");
    await subscribe(email);
    const token = tokenIn((await ses.to(email))[0]);
    const page = await forms.handle(
      new Request(`http://localhost/v1/public/newsletter/confirm?t=${token}`),
    );
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("set-cookie")).toBeNull();
    expect(await page.text()).not.toContain("<script");
  });

  test("a page for a malformed token is 410 and reflects nothing", async () => {
    const page = await forms.handle(
      new Request(
        `http://localhost/v1/public/newsletter/confirm?t=${encodeURIComponent('"><script>alert(1)</script>')}`,
      ),
    );
    expect(page.status).toBe(410);
    expect(await page.text()).not.toContain("alert(1)");
  });
});
