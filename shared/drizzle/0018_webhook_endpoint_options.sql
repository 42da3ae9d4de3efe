ALTER TABLE "api_keys" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "topics" jsonb;