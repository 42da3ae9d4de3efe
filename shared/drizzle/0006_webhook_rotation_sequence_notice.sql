ALTER TABLE "outbox_events" ADD COLUMN "sequence" integer;--> statement-breakpoint
ALTER TABLE "outbox_events" ADD COLUMN "previous_status" text;--> statement-breakpoint
ALTER TABLE "stories" ADD COLUMN "event_sequence" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret_ciphertext" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "disabled_notified_at" timestamp with time zone;