-- data_version leaves the organization's row for a table of its own: every story transition
-- moves it, and the organization's row is what the foreign keys of the busiest tables check
-- with a share lock on each insert.
CREATE TABLE "organization_data_versions" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"data_version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organization_data_versions" ADD CONSTRAINT "organization_data_versions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO "organization_data_versions" ("organization_id", "data_version")
  SELECT "id", "data_version" FROM "organizations" WHERE "data_version" > 0;
--> statement-breakpoint
-- One row per organization, made by its first change; in id order, so two statements touching
-- the same organizations cannot deadlock here.
CREATE OR REPLACE FUNCTION "bump_data_version"("organization_ids" uuid[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(organization_ids) = 0 THEN
    RETURN;
  END IF;
  INSERT INTO "organization_data_versions" ("organization_id", "data_version")
    SELECT DISTINCT "ids"."id", 1 FROM unnest(organization_ids) AS "ids"("id")
    WHERE "ids"."id" IS NOT NULL ORDER BY "ids"."id"
  ON CONFLICT ("organization_id")
    DO UPDATE SET "data_version" = "organization_data_versions"."data_version" + 1;
END;
$$;
--> statement-breakpoint
DROP TRIGGER "organizations_data_version" ON "organizations";
--> statement-breakpoint
-- The organization's own row (name, newsroom_running, ...).
CREATE OR REPLACE FUNCTION "organization_changed"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF to_jsonb(NEW) - 'updated_at' IS DISTINCT FROM to_jsonb(OLD) - 'updated_at' THEN
    PERFORM "bump_data_version"(ARRAY[NEW."id"]);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "organizations_data_version" AFTER UPDATE ON "organizations"
  FOR EACH ROW EXECUTE FUNCTION "organization_changed"();
--> statement-breakpoint
ALTER TABLE "organizations" DROP COLUMN "data_version";
