import { describe, expect, test } from "bun:test";
import { statusIncidentEvent } from "@newsroom/shared/testing/status-events";
import { digestSubscriber } from "./support/fixtures.ts";
import { address, envelope, startRefusingProvider } from "./support/harness.ts";
import {
  emailsArrive,
  emailsTo,
  STATUS_SUBSCRIBE,
  statusRow,
  statusSubscriber,
  statusTokenIn,
  subscribeToStatus,
} from "./support/status.ts";
import { formsWorld } from "./support/world.ts";

const { ses, forms } = formsWorld();

const HOUR = 3600_000;
const json = { headers: { accept: "application/json" } };

describe("subscribe errors", () => {
  test("a bad address is 422 naming the field", async () => {
    const response = await forms.post(STATUS_SUBSCRIBE, { email: "no-at-sign", ...envelope() });
    expect(response.status).toBe(422);
    const body = (await response.json()) as {
      error: { code: string; fields: { field: string; reason: string }[] };
    };
    expect(body.error.code).toBe("validation_failed");
    expect(body.error.fields).toEqual([
      expect.objectContaining({ field: "email", reason: "invalid_email" }),
    ]);
  });

  test("every bad field is named at once: a missing address, a malformed envelope", async () => {
    const response = await forms.post(STATUS_SUBSCRIBE, {
      submission_id: "not-a-uuid",
      started_at: "yesterday",
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { fields: { field: string }[] } };
    expect(body.error.fields.map((f) => f.field).sort()).toEqual([
      "email",
      "started_at",
      "submission_id",
    ]);
  });

  test("without email configured the route answers 503 forms_unavailable", async () => {
    const off = await forms.sibling({ FORMS_FROM_EMAIL: undefined, FORMS_TEAM_EMAIL: undefined });
    try {
      const response = await subscribeToStatus(off, address("off"));
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
        "forms_unavailable",
      );
    } finally {
      await off.close();
    }
  });
});

describe("confirmation errors", () => {
  test("an unknown token is 410, as a page and as JSON", async () => {
    const unknown = "A".repeat(43);
    const page = await forms.handle(
      new Request(`http://localhost/v1/public/status/confirm?t=${unknown}`),
    );
    expect(page.status).toBe(410);
    expect(await page.text()).toContain("This link has expired");
    const post = await forms.post("/v1/public/status/confirm", { t: unknown }, json);
    expect(post.status).toBe(410);
    expect(await post.json()).toEqual({ status: "expired" });
  });

  test("a link past its 48 hours is 410 and subscribes nobody", async () => {
    const email = address("late");
    await subscribeToStatus(forms, email);
    const [confirmation] = await emailsTo(ses, email, "Confirm");
    forms.clock.advance(49 * HOUR);
    try {
      const post = await forms.post(
        "/v1/public/status/confirm",
        { t: statusTokenIn(confirmation) },
        json,
      );
      expect(post.status).toBe(410);
      expect(await statusRow(forms, email)).toBeUndefined();
    } finally {
      forms.clock.advance(-49 * HOUR);
    }
  });

  test("a digest link does not confirm status updates, nor the other way round", async () => {
    const email = address("crossed");
    await forms.post("/v1/public/newsletter/subscribe", {
      email,
      consent: true,
      ...envelope(forms.clock.now().getTime()),
    });
    const [digest] = await emailsTo(ses, email, "Confirm your subscription to the weekly digest");
    const digestToken = /confirm\?t=([A-Za-z0-9_-]{43})/.exec(digest?.body.text ?? "")![1]!;
    const crossed = await forms.post("/v1/public/status/confirm", { t: digestToken }, json);
    expect(crossed.status).toBe(410);
    expect(await statusRow(forms, email)).toBeUndefined();

    await subscribeToStatus(forms, email);
    const [status] = await emailsTo(ses, email, "Confirm your subscription to status");
    const back = await forms.post("/v1/public/newsletter/subscribe/confirm", {
      t: statusTokenIn(status),
    });
    expect(back.status).toBe(410);
  });
});

describe("sending updates", () => {
  test("a copy the provider refused goes out once when the event comes again", async () => {
    const email = address("refused");
    await statusSubscriber(forms, ses, email);
    const provider = startRefusingProvider(400);
    const refusing = await forms.sibling({ SES_ENDPOINT: provider.url }, { sameClock: true });
    const event = statusIncidentEvent();
    try {
      await refusing.bus.publish(event);
      const deadline = Date.now() + 20_000;
      while (provider.attempts() === 0 && Date.now() < deadline) await Bun.sleep(50);
      expect(provider.attempts()).toBeGreaterThan(0);
    } finally {
      // Stops its redelivery of the event.
      await refusing.close();
      provider.close();
    }
    expect(await emailsTo(ses, email, "[Investigating]")).toHaveLength(0);

    await forms.bus.publish(event);
    await emailsArrive(ses, email, "[Investigating]");
    await Bun.sleep(500);
    expect(await emailsTo(ses, email, "[Investigating]")).toHaveLength(1);
  });

  test("a malformed event is dropped; the next one goes out", async () => {
    const email = address("malformed");
    await statusSubscriber(forms, ses, email);
    const broken = statusIncidentEvent();
    (broken.data as { update: unknown }).update = { id: 7 };
    await forms.bus.publish(broken);
    await forms.bus.publish(statusIncidentEvent({ update: { status: "monitoring" } }));
    await emailsArrive(ses, email, "[Monitoring]");
    expect(await emailsTo(ses, email, "[")).toHaveLength(1);
  });

  test("a digest subscriber gets no status update", async () => {
    const email = address("digest-only");
    await digestSubscriber(forms, ses, email);
    const other = address("status-too");
    await statusSubscriber(forms, ses, other);
    await forms.bus.publish(statusIncidentEvent({ update: { status: "resolved" } }));
    await emailsArrive(ses, other, "[Resolved]");
    expect(await emailsTo(ses, email, "[Resolved]")).toHaveLength(0);
  });
});
