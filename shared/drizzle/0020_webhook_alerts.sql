CREATE TABLE "webhook_alerts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"type" text NOT NULL,
	"threshold" integer DEFAULT 0 NOT NULL,
	"episode" timestamp with time zone NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"announced_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "failed_attempts_in_a_row" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "failing_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "failure_alert_percent" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_alerts" ADD CONSTRAINT "webhook_alerts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_alerts_once_idx" ON "webhook_alerts" USING btree ("endpoint_id","type","episode","threshold");--> statement-breakpoint
CREATE INDEX "webhook_alerts_endpoint_created_idx" ON "webhook_alerts" USING btree ("endpoint_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_alerts_owed_idx" ON "webhook_alerts" USING btree ("created_at") WHERE announced_at is null;