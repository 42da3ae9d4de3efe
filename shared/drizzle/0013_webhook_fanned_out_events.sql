CREATE TABLE "webhook_fanned_out_events" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"fanned_out_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "outbox_created_idx" ON "outbox_events" USING btree ("created_at");
--> statement-breakpoint
-- The fan-out marks kept so far on the outbox become the webhooks service's own record, so that no
-- event is fanned out twice after the upgrade.
INSERT INTO "webhook_fanned_out_events" ("event_id", "fanned_out_at")
SELECT "id", "fanned_out_at" FROM "outbox_events" WHERE "fanned_out_at" IS NOT NULL;
