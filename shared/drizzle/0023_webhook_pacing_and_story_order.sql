ALTER TABLE "webhook_deliveries" ADD COLUMN "story_order" integer;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "rate_limit_per_second" integer;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "ordering" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_story_order_idx" ON "webhook_deliveries" USING btree ("endpoint_id","story_id","story_order") WHERE status = 'pending' and story_order is not null;