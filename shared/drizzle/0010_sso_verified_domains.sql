CREATE TABLE "sso_verified_domains" (
	"domain" text PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"verified_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workspace_sessions" ADD COLUMN "sso_organization_id" uuid;--> statement-breakpoint
ALTER TABLE "sso_verified_domains" ADD CONSTRAINT "sso_verified_domains_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sso_verified_domains_organization_idx" ON "sso_verified_domains" USING btree ("organization_id");--> statement-breakpoint
ALTER TABLE "workspace_sessions" ADD CONSTRAINT "workspace_sessions_sso_organization_id_organizations_id_fk" FOREIGN KEY ("sso_organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;