import type { EventBus, Subscription } from "@newsroom/shared/bus/index";
import { EVENT, type WebhookTestResultEvent } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { testWebhookEndpoint } from "./service.ts";

/** How long `?wait=true` waits for the webhooks service: its 10 s attempt, and some room. */
export const TEST_RESULT_WAIT_MS = 15_000;

/** The `test` part of the answer: what the receiver did with the test event, if known in time. */
export type TestOutcome =
  | {
      event_id: string;
      status: "accepted" | "failed";
      status_code: number | null;
      duration_ms: number;
      error: string | null;
    }
  | { event_id: string; status: "pending"; message: string };

type Result = WebhookTestResultEvent["data"];

/**
 * Hears `webhook.test_result` events (every replica hears each, so whichever replica asked gets
 * its answer) and hands each to the request waiting for that test event. One subscription per
 * bus, made on first use.
 */
class TestResults {
  private subscription: Promise<Subscription> | null = null;
  private readonly waiting = new Map<string, (result: Result) => void>();

  constructor(private readonly bus: EventBus) {}

  async ready(): Promise<void> {
    this.subscription ??= this.bus.subscribe(
      async (event) => {
        if (event.type === EVENT.webhookTestResult) {
          this.waiting.get(event.data.test_event_id)?.(event.data);
        }
      },
      { durable: "workspace-test-results", broadcast: true, types: [EVENT.webhookTestResult] },
    );
    try {
      await this.subscription;
    } catch (error) {
      this.subscription = null;
      throw error;
    }
  }

  /** The result of test event `id`, or null after `ms`; `cancel` stops waiting at once. */
  wait(id: string, ms: number): { result: Promise<Result | null>; cancel(): void } {
    let cancel = () => {};
    const result = new Promise<Result | null>((resolve) => {
      const done = (value: Result | null) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(value);
      };
      const timer = setTimeout(() => done(null), ms);
      this.waiting.set(id, done);
      cancel = () => done(null);
    });
    return { result, cancel };
  }
}

const perBus = new WeakMap<EventBus, TestResults>();

/**
 * Sends `webhook.test` and waits up to `waitMs` for the webhooks service to say how it went:
 * accepted (a 2xx), failed (the status or the reason), or still pending.
 */
export async function testAndWait(
  deps: Parameters<typeof testWebhookEndpoint>[0],
  endpointId: string,
  waitMs = TEST_RESULT_WAIT_MS,
) {
  let results = perBus.get(deps.bus);
  if (!results) {
    results = new TestResults(deps.bus);
    perBus.set(deps.bus, results);
  }
  await results.ready();
  const eventId = newId();
  const waiting = results.wait(eventId, waitMs);
  try {
    const endpoint = await testWebhookEndpoint(deps, endpointId, eventId);
    const result = await waiting.result;
    const test: TestOutcome = result
      ? {
          event_id: eventId,
          status: result.accepted ? "accepted" : "failed",
          status_code: result.status_code,
          duration_ms: result.duration_ms,
          error: result.error,
        }
      : {
          event_id: eventId,
          status: "pending",
          message: `No word from the webhooks service within ${Math.round(waitMs / 1000)} s: is it running? The test event is still sent once it picks it up.`,
        };
    return { endpoint, test };
  } finally {
    waiting.cancel();
  }
}
