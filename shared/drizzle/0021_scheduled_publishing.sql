ALTER TABLE "stories" ADD COLUMN "publish_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "stories" ADD COLUMN "scheduled_by" uuid;--> statement-breakpoint
ALTER TABLE "stories" ADD COLUMN "publish_failure" text;--> statement-breakpoint
CREATE INDEX "stories_scheduled_publish_at_idx" ON "stories" USING btree ("publish_at") WHERE "stories"."status" = 'scheduled';