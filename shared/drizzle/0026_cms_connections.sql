CREATE TABLE "cms_connections" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"url" text NOT NULL,
	"credential_ciphertext" text NOT NULL,
	"unpublish_mode" text DEFAULT 'draft' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"status" text DEFAULT 'unchecked' NOT NULL,
	"last_error" text,
	"last_error_at" timestamp with time zone,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"failing_announcement_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cms_images" (
	"connection_id" uuid NOT NULL,
	"asset_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"remote_id" text NOT NULL,
	"remote_url" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cms_images_connection_id_asset_id_pk" PRIMARY KEY("connection_id","asset_id")
);
--> statement-breakpoint
CREATE TABLE "cms_posts" (
	"connection_id" uuid NOT NULL,
	"story_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"remote_id" text NOT NULL,
	"remote_updated_at" text,
	"remote_url" text,
	"written_version" integer,
	"marker" text NOT NULL,
	"state" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cms_posts_connection_id_story_id_pk" PRIMARY KEY("connection_id","story_id")
);
--> statement-breakpoint
CREATE TABLE "cms_writes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"connection_id" uuid NOT NULL,
	"story_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"action" text NOT NULL,
	"performed" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"last_error" text,
	"done_at" timestamp with time zone,
	"failed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cms_connections" ADD CONSTRAINT "cms_connections_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cms_images" ADD CONSTRAINT "cms_images_connection_id_cms_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."cms_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cms_posts" ADD CONSTRAINT "cms_posts_connection_id_cms_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."cms_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cms_writes" ADD CONSTRAINT "cms_writes_connection_id_cms_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."cms_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cms_connections_org_idx" ON "cms_connections" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "cms_writes_event_idx" ON "cms_writes" USING btree ("connection_id","event_id");--> statement-breakpoint
CREATE INDEX "cms_writes_due_idx" ON "cms_writes" USING btree ("next_attempt_at");--> statement-breakpoint
CREATE INDEX "cms_writes_story_idx" ON "cms_writes" USING btree ("organization_id","story_id","created_at");