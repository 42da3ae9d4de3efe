import { describe, expect, test } from "bun:test";
import { statusIncidentEvent } from "@newsroom/shared/testing/status-events";
import { digestSubscriber } from "./support/fixtures.ts";
import { address, answerBytes, clientIp, unsubscribeLinkIn } from "./support/harness.ts";
import {
  emailsArrive,
  emailsTo,
  statusRow,
  statusSubscriber,
  statusTokenIn,
  subscribeToStatus,
} from "./support/status.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms } = formsWorld();

const HOUR = 3600_000;

describe("no enumeration", () => {
  test("new, pending, subscribed and throttled addresses get byte-identical answers", async () => {
    const fresh = address("new");
    const pending = address("pending");
    const subscribed = address("subscribed");
    const throttled = address("throttled");
    await subscribeToStatus(forms, pending);
    await statusSubscriber(forms, ses, subscribed);
    await subscribeToStatus(forms, throttled);
    forms.clock.advance(HOUR + 1_000);
    try {
      await subscribeToStatus(forms, throttled); // the day's second: throttled from now on
      const answers = {
        new: await answerBytes(await subscribeToStatus(forms, fresh)),
        pending: await answerBytes(await subscribeToStatus(forms, pending)),
        subscribed: await answerBytes(await subscribeToStatus(forms, subscribed)),
        throttled: await answerBytes(await subscribeToStatus(forms, throttled)),
      };
      expect(answers.new).toContain("202");
      expect(answers.pending).toBe(answers.new);
      expect(answers.subscribed).toBe(answers.new);
      expect(answers.throttled).toBe(answers.new);
      expect(await emailsTo(ses, throttled, "Confirm")).toHaveLength(2);
    } finally {
      forms.clock.advance(-(HOUR + 1_000));
    }
  });

  test("the form post's redirect is the same whatever the address", async () => {
    const subscribed = address("known");
    await statusSubscriber(forms, ses, subscribed);
    const known = await subscribeToStatus(forms, subscribed, { as: "form" });
    const fresh = await subscribeToStatus(forms, address("unknown"), { as: "form" });
    expect(known.status).toBe(303);
    expect(known.headers.get("location")).toBe(fresh.headers.get("location"));
  });
});

describe("token guessing", () => {
  test("guessed confirmation tokens confirm nothing, and a client is held to 20 a minute", async () => {
    const ip = clientIp();
    const guesses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const guess = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
      const response = await forms.post(
        "/v1/public/status/confirm",
        { t: guess },
        { ip, headers: { accept: "application/json" } },
      );
      guesses.push(response.status);
    }
    expect(guesses.slice(0, 20).every((status) => status === 410)).toBe(true);
    expect(guesses[20]).toBe(429);
  });

  test("a digest unsubscribe link, a changed or a truncated token unsubscribe nobody", async () => {
    const email = address("guarded");
    const welcome = await statusSubscriber(forms, ses, email);
    const link = unsubscribeLinkIn(welcome);
    const token = new URL(`http://localhost${link}`).searchParams.get("t")!;
    const digestWelcome = await digestSubscriber(forms, ses, address("digest"));
    const digestToken = new URL(
      `http://localhost${unsubscribeLinkIn(digestWelcome)}`,
    ).searchParams.get("t")!;
    const changed = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    for (const t of [digestToken, changed, token.slice(0, 64), ""]) {
      const response = await forms.post(
        `/v1/public/status/unsubscribe?t=${t}`,
        "List-Unsubscribe=One-Click",
        { headers: { "content-type": "application/x-www-form-urlencoded" } },
      );
      expect(response.status).toBe(404);
    }
    expect(await statusRow(forms, email)).toBeDefined();
    // And the status token does not unsubscribe from the digest.
    const crossed = await forms.post(
      `/v1/public/newsletter/unsubscribe?t=${token}`,
      "List-Unsubscribe=One-Click",
      { headers: { "content-type": "application/x-www-form-urlencoded" } },
    );
    expect(crossed.status).toBe(404);
  });
});

describe("what an update email carries", () => {
  test("the staff's words are text in the HTML part, never markup", async () => {
    const email = address("escaped");
    await statusSubscriber(forms, ses, email);
    await forms.bus.publish(
      statusIncidentEvent({
        incident: { name: "<img src=x onerror=alert(1)>" },
        update: { body: '<script>alert("x")</script> & more' },
      }),
    );
    const [copy] = await emailsArrive(ses, email, "[Investigating]");
    expect(copy?.body.html).not.toContain("<script>");
    expect(copy?.body.html).not.toContain("<img src=x");
    expect(copy?.body.html).toContain("&lt;script&gt;");
    expect(copy?.body.text).toContain('<script>alert("x")</script> & more');
  });

  test("the confirmation page of a status token is not framed, cached or referred", async () => {
    const email = address("headers");
    await subscribeToStatus(forms, email);
    const [confirmation] = await emailsTo(ses, email, "Confirm");
    const page = await forms.handle(
      new Request(`http://localhost/v1/public/status/confirm?t=${statusTokenIn(confirmation)}`),
    );
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });
});
