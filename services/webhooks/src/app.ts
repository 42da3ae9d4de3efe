import {
  adminToken,
  insecureWebhookTargets,
  retrySchedule,
  secretsKey,
} from "@newsroom/shared/config";
import { httpKit } from "@newsroom/shared/http/http-kit";
import { checkAdminToken } from "@newsroom/shared/http/internal-auth";
import { pathOf } from "@newsroom/shared/http/urls";
import { log } from "@newsroom/shared/log";
import { consumerPending, readQueueAtScrape } from "@newsroom/shared/metrics";
import type { Runtime } from "@newsroom/shared/runtime";
import type { ServiceHandle } from "@newsroom/shared/service";
import { Elysia } from "elysia";
import { announceAlerts } from "./alerts/announce.ts";
import { announceFailingCmsConnections } from "./cms/announce.ts";
import type { CmsConnectionRow } from "./cms/connections.ts";
import type { CmsConnector } from "./cms/connector.ts";
import { cmsRoutes } from "./cms/routes.ts";
import { databaseStorySource, type StorySource } from "./cms/story-source.ts";
import {
  CMS_WRITER_CONSUMER,
  CmsWriter,
  reconcileCmsWrites,
  startCmsWriterConsumer,
} from "./cms/writer.ts";
import type { WebhooksConfig } from "./config.ts";
import {
  countPendingDeliveries,
  deleteOldAttempts,
  readDeliveryQueue,
  stopDeliveriesOfDisabledEndpoints,
} from "./delivery/store.ts";
import type { HostResolver } from "./delivery/target-guard.ts";
import { DeliveryWorker, DISABLE_AFTER_FAILED_DELIVERIES } from "./delivery/worker.ts";
import { announceDisabledEndpoints } from "./endpoint-disabled/announce.ts";
import { endpointRoutes } from "./endpoints/routes.ts";
import { FAN_OUT_CONSUMER, startFanOutConsumer } from "./fan-out/consumer.ts";
import { reconcileOnce } from "./fan-out/reconciler.ts";
import { STATUS_FAN_OUT_CONSUMER, startStatusFanOutConsumer } from "./fan-out/status.ts";
import { every } from "./periodic-job.ts";

export interface WebhooksOptions {
  /** How often the delivery worker looks for due deliveries (default 1 s). */
  pollIntervalMs?: number;
  /** How often the reconciler looks for events the bus lost (default 15 s). */
  reconcileIntervalMs?: number;
  /** How old an event not yet fanned out must be before the reconciler takes it (1 min). */
  reconcileAfterMs?: number;
  /** How long a receiver has to answer (default 10 s). */
  attemptTimeoutMs?: number;
  /** Attempts in flight at once in this process (default 64). */
  concurrency?: number;
  /** Durable consumer name on the bus (default `webhooks-fanout`). */
  consumerName?: string;
  /** How host names are resolved before each attempt (default: the system resolver). */
  resolveHost?: HostResolver;
  /** Durable consumer name of the CMS writer (default `webhooks-cms-writer`). */
  cmsConsumerName?: string;
  /** Where the CMS writer reads stories and images (default: the shared story records). */
  cmsStorySource?: StorySource;
  /** Which connector a CMS connection uses (tests wrap one); by its kind by default. */
  cmsConnectorFor?: (row: CmsConnectionRow) => CmsConnector;
}

/** The webhook dispatcher: fans story events out to endpoints, signs, delivers, retries. */
export async function createWebhooksService(
  runtime: Runtime<WebhooksConfig>,
  options: WebhooksOptions = {},
): Promise<ServiceHandle> {
  const { db } = runtime.database;
  const worker = new DeliveryWorker({
    db,
    secretsKey: secretsKey(runtime.config),
    schedule: retrySchedule(runtime.config),
    pollIntervalMs: options.pollIntervalMs ?? 1_000,
    timeoutMs: options.attemptTimeoutMs,
    concurrency: options.concurrency,
    endpointConcurrency: runtime.config.WEBHOOK_ENDPOINT_CONCURRENCY,
    allowInsecureTargets: runtime.config.WEBHOOK_ALLOW_INSECURE_TARGETS,
    resolve: options.resolveHost,
    pacing: runtime.rateLimits,
    // Announced at once; a publish that fails is left owed for the periodic pass.
    onEndpointDisabled: async (endpoint) => {
      const only = { organizationId: endpoint.organizationId, endpointId: endpoint.id };
      await announceDisabledEndpoints(db, runtime.bus, DISABLE_AFTER_FAILED_DELIVERIES, only).catch(
        (error: unknown) =>
          log.warn("announcing a disabled webhook endpoint failed; the periodic pass will", {
            endpoint_id: endpoint.id,
            error: error instanceof Error ? error.message : String(error),
          }),
      );
    },
    // Announced at once; a publish that fails is left owed for the periodic pass.
    onAlertsRaised: async () => {
      await announceAlerts(db, runtime.bus).catch((error: unknown) =>
        log.warn("announcing webhook alerts failed; the periodic pass will", {
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    },
  });
  worker.start();
  const consumer = await startFanOutConsumer(
    db,
    runtime.bus,
    { onDeliveries: () => worker.kick(), claimer: worker },
    options.consumerName ?? FAN_OUT_CONSUMER,
  );
  // The status page's events, to the endpoints of every organization subscribed to them.
  const statusConsumer = await startStatusFanOutConsumer(
    db,
    runtime.bus,
    { onDeliveries: () => worker.kick() },
    options.consumerName ? `${options.consumerName}-status` : STATUS_FAN_OUT_CONSUMER,
  );
  // The first pass takes every event committed before this process started and not yet fanned
  // out, however young: events a replica that died held unacknowledged go out now, not after
  // the bus's ack wait. Fanning out is idempotent, so racing the bus costs nothing.
  let firstPass: Date | null = new Date();
  const reconciler = every(
    options.reconcileIntervalMs ?? 15_000,
    "webhook reconciler",
    async () => {
      const { deliveries } = firstPass
        ? await reconcileOnce(db, firstPass, 0)
        : await reconcileOnce(db, new Date(), options.reconcileAfterMs);
      firstPass = null;
      await stopDeliveriesOfDisabledEndpoints(db);
      await announceDisabledEndpoints(db, runtime.bus, DISABLE_AFTER_FAILED_DELIVERIES);
      await announceAlerts(db, runtime.bus);
      await deleteOldAttempts(db);
      if (deliveries > 0) worker.kick();
      consumerPending.set(await countPendingDeliveries(db));
    },
  );

  // Writing into clients' CMSs: a write per enabled connection for each story published or
  // unpublished, performed on the webhook retry schedule.
  const cmsHttp = {
    allowInsecureTargets: runtime.config.WEBHOOK_ALLOW_INSECURE_TARGETS,
    resolve: options.resolveHost,
  };
  const cmsWriter = new CmsWriter({
    db,
    secretsKey: secretsKey(runtime.config),
    source: options.cmsStorySource ?? databaseStorySource(db, runtime.config),
    http: cmsHttp,
    schedule: retrySchedule(runtime.config),
    pollIntervalMs: options.pollIntervalMs ?? 1_000,
    connectorFor: options.cmsConnectorFor,
    // Announced at once; a publish that fails is left owed for the periodic pass.
    onFailing: async (row) => {
      await announceFailingCmsConnections(db, runtime.bus, { connectionId: row.id });
    },
  });
  // The periodic pass: writes of story events the bus lost, and failing notices still owed.
  const cmsReconciler = every(options.reconcileIntervalMs ?? 15_000, "CMS reconciler", async () => {
    if ((await reconcileCmsWrites(db, options.reconcileAfterMs)) > 0) cmsWriter.kick();
    await announceFailingCmsConnections(db, runtime.bus);
  });
  cmsWriter.start();
  const cmsConsumer = await startCmsWriterConsumer(
    db,
    runtime.bus,
    () => cmsWriter.kick(),
    options.cmsConsumerName ?? CMS_WRITER_CONSUMER,
  );

  const stopReadingQueue = readQueueAtScrape(() => readDeliveryQueue(db));

  const kit = httpKit("webhooks");
  const token = adminToken(runtime.config);
  const app = new Elysia({ name: "webhooks" })
    .use(kit)
    .get("/health", () => ({ status: "ok", service: "webhooks" }))
    .onRequest(({ request }) => {
      if (pathOf(request.url).startsWith("/internal/")) {
        checkAdminToken(request.headers.get("authorization"), token);
      }
    })
    // The delivery queue's lag, read by the workspace's status page prober.
    .get("/internal/v1/delivery_queue", async () => {
      const reading = await readDeliveryQueue(db);
      return {
        object: "delivery_queue",
        due: reading.due,
        oldest_due_seconds: reading.oldestDueSeconds,
      };
    })
    .use(
      endpointRoutes({
        db,
        secretsKey: secretsKey(runtime.config),
        allowInsecureTargets: insecureWebhookTargets(runtime.config),
        sendToInsecureTargets: runtime.config.WEBHOOK_ALLOW_INSECURE_TARGETS,
        attemptTimeoutMs: options.attemptTimeoutMs,
        resolveHost: options.resolveHost,
        tokens: worker.tokens,
      }),
    )
    .use(
      cmsRoutes({
        db,
        secretsKey: secretsKey(runtime.config),
        allowInsecureTargets: insecureWebhookTargets(runtime.config),
        http: cmsHttp,
      }),
    );
  kit.bindRoutes(app);
  return {
    name: "webhooks",
    app,
    readiness: [{ name: "database", check: () => runtime.database.ping() }],
    stop: async () => {
      stopReadingQueue();
      await consumer.stop();
      await cmsConsumer.stop();
      await cmsWriter.stop();
      await cmsReconciler.stop();
      await statusConsumer.stop();
      await reconciler.stop();
      await worker.stop();
    },
  };
}
