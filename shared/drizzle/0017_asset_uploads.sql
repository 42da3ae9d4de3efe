CREATE TABLE "asset_variants" (
	"asset_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"content_type" text NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"bytes" integer NOT NULL,
	"data" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "asset_variants_asset_id_name_pk" PRIMARY KEY("asset_id","name")
);
--> statement-breakpoint
ALTER TABLE "assets" ADD COLUMN "content_type" text;--> statement-breakpoint
ALTER TABLE "assets" ADD COLUMN "width" integer;--> statement-breakpoint
ALTER TABLE "assets" ADD COLUMN "height" integer;--> statement-breakpoint
ALTER TABLE "assets" ADD COLUMN "bytes" integer;--> statement-breakpoint
ALTER TABLE "assets" ADD COLUMN "credit" text;--> statement-breakpoint
ALTER TABLE "assets" ADD COLUMN "rights_holder" text;--> statement-breakpoint
ALTER TABLE "assets" ADD COLUMN "sha256" text;--> statement-breakpoint
ALTER TABLE "assets" ADD COLUMN "uploaded_by" text;--> statement-breakpoint
ALTER TABLE "assets" ADD COLUMN "cleared_by" text;--> statement-breakpoint
ALTER TABLE "assets" ADD COLUMN "cleared_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "asset_variants" ADD CONSTRAINT "asset_variants_asset_id_assets_id_fk" FOREIGN KEY ("asset_id") REFERENCES "public"."assets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "asset_variants" ADD CONSTRAINT "asset_variants_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "asset_variants_name_idx" ON "asset_variants" USING btree ("name");