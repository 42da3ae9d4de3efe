-- One dispatcher at a time holds an endpoint's deliveries and counts its cap itself: the claims
-- no longer count each endpoint's claimed rows, and their index goes. A claim then changes no
-- indexed column of a delivery, nor the recording of an answer any of its attempt, and room
-- left in each page lets PostgreSQL update such a row in place (a HOT update, no new index
-- entries). The room is kept in pages written from now on; existing pages fill as they were.
CREATE TABLE "webhook_endpoint_leases" (
	"endpoint_id" uuid PRIMARY KEY NOT NULL,
	"worker_id" uuid NOT NULL,
	"leased_until" timestamp with time zone NOT NULL,
	"wanted_by" uuid
);
--> statement-breakpoint
DROP INDEX "webhook_deliveries_endpoint_claimed_idx";--> statement-breakpoint
ALTER TABLE "webhook_endpoint_leases" ADD CONSTRAINT "webhook_endpoint_leases_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" SET (fillfactor = 70);--> statement-breakpoint
ALTER TABLE "webhook_attempts" SET (fillfactor = 70);
