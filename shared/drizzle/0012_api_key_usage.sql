CREATE TABLE "api_key_usage" (
	"key_id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"last_used_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_key_usage" ADD CONSTRAINT "api_key_usage_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_key_usage" ADD CONSTRAINT "api_key_usage_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Key use moves from api_keys (written by the workspace) to a table client-api alone writes.
-- api_keys.last_used_at is no longer read or written; it stays one release for the replicas of
-- the previous one, which still read it while a rolling update runs.
INSERT INTO "api_key_usage" ("key_id", "organization_id", "last_used_at")
  SELECT "id", "organization_id", "last_used_at" FROM "api_keys" WHERE "last_used_at" IS NOT NULL;
