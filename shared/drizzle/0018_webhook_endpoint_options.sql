ALTER TABLE "api_keys" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "topics" jsonb;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "auth_type" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "auth_ciphertext" text;