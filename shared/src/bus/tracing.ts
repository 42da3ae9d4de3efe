import type { BusEvent } from "../events.ts";
import {
  contextFromHeaders,
  injectTraceHeaders,
  inSpan,
  SpanKind,
  tracingOn,
} from "../tracing/index.ts";

/** What carries the trace context on a message: its headers (NATS headers, or a Map in-process). */
export interface TraceCarrier {
  get(name: string): string | null | undefined;
  set(name: string, value: string): void;
}

/**
 * Publishes inside a `send {subject}` producer span (the messaging conventions: NATS, the subject
 * as destination, the event id as message id); `send` gets the trace context to put on the
 * message, written into `carrier()` (none without tracing).
 */
export function inPublishSpan<T, C extends TraceCarrier>(
  event: BusEvent,
  subject: string,
  carrier: () => C,
  send: (traceHeaders: C | undefined) => Promise<T>,
): Promise<T> {
  if (!tracingOn()) return send(undefined);
  return inSpan(
    `send ${subject}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        "messaging.system": "nats",
        "messaging.destination.name": subject,
        "messaging.operation.type": "send",
        "messaging.operation.name": "publish",
        "messaging.message.id": event.id,
      },
    },
    () => {
      const headers = carrier();
      injectTraceHeaders(headers);
      return send(headers);
    },
  );
}

/**
 * Handles a message inside a `process {subject}` consumer span, the child of the span that
 * published it (the trace context in its headers), so that what the handler does joins the trace
 * that made the event.
 */
export function inConsumeSpan<T>(
  event: BusEvent,
  subject: string,
  consumer: string,
  traceHeaders: TraceCarrier | undefined,
  handle: () => Promise<T>,
): Promise<T> {
  if (!tracingOn()) return handle();
  return inSpan(
    `process ${subject}`,
    {
      kind: SpanKind.CONSUMER,
      parent: traceHeaders ? contextFromHeaders(traceHeaders) : undefined,
      attributes: {
        "messaging.system": "nats",
        "messaging.destination.name": subject,
        "messaging.operation.type": "process",
        "messaging.operation.name": "consume",
        "messaging.message.id": event.id,
        "messaging.consumer.group.name": consumer,
      },
    },
    handle,
  );
}
