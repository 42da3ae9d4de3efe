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
-- The bump moves to the commit: row triggers deferred to the end of the transaction, each
-- organization moved once per transaction. The organization's row of versions is locked only
-- while its transaction commits, not from its first write on: two transitions of one
-- organization no longer wait for each other's remaining statements and round trips.
CREATE FUNCTION "bump_data_version_once"("organization" uuid) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  -- The organizations this transaction has moved, as ",id,id,": a setting local to it.
  moved text := coalesce(current_setting('newsroom.data_version_moved', true), '');
BEGIN
  IF "organization" IS NULL OR position(',' || "organization"::text || ',' IN moved) > 0 THEN
    RETURN;
  END IF;
  PERFORM set_config('newsroom.data_version_moved',
    CASE WHEN moved = '' THEN ',' ELSE moved END || "organization"::text || ',', true);
  INSERT INTO "organization_data_versions" ("organization_id", "data_version")
    VALUES ("organization", 1)
  ON CONFLICT ("organization_id")
    DO UPDATE SET "data_version" = "organization_data_versions"."data_version" + 1;
END;
$$;
--> statement-breakpoint
-- Rows that carry organization_id. TG_ARGV names columns whose change alone alters no answer.
CREATE FUNCTION "organization_row_changed"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM "bump_data_version_once"(NEW."organization_id");
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM "bump_data_version_once"(OLD."organization_id");
  -- TG_ARGV is null, not empty, for a trigger without arguments.
  ELSIF to_jsonb(NEW) - coalesce(TG_ARGV, '{}') IS DISTINCT FROM to_jsonb(OLD) - coalesce(TG_ARGV, '{}') THEN
    PERFORM "bump_data_version_once"(NEW."organization_id");
    PERFORM "bump_data_version_once"(OLD."organization_id");
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- Rows of a story (versions, topics): the organization is the story's.
CREATE FUNCTION "story_row_changed"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'DELETE' THEN
    PERFORM "bump_data_version_once"((SELECT "organization_id" FROM "stories" WHERE "id" = NEW."story_id"));
  END IF;
  IF TG_OP <> 'INSERT' THEN
    PERFORM "bump_data_version_once"((SELECT "organization_id" FROM "stories" WHERE "id" = OLD."story_id"));
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
DROP TRIGGER "stories_data_version_insert" ON "stories";--> statement-breakpoint
DROP TRIGGER "stories_data_version_update" ON "stories";--> statement-breakpoint
DROP TRIGGER "stories_data_version_delete" ON "stories";--> statement-breakpoint
DROP TRIGGER "topics_data_version_insert" ON "topics";--> statement-breakpoint
DROP TRIGGER "topics_data_version_update" ON "topics";--> statement-breakpoint
DROP TRIGGER "topics_data_version_delete" ON "topics";--> statement-breakpoint
DROP TRIGGER "approval_decisions_data_version_insert" ON "approval_decisions";--> statement-breakpoint
DROP TRIGGER "approval_decisions_data_version_update" ON "approval_decisions";--> statement-breakpoint
DROP TRIGGER "approval_decisions_data_version_delete" ON "approval_decisions";--> statement-breakpoint
DROP TRIGGER "webhook_endpoints_data_version_insert" ON "webhook_endpoints";--> statement-breakpoint
DROP TRIGGER "webhook_endpoints_data_version_update" ON "webhook_endpoints";--> statement-breakpoint
DROP TRIGGER "webhook_endpoints_data_version_delete" ON "webhook_endpoints";--> statement-breakpoint
DROP TRIGGER "sites_data_version_insert" ON "sites";--> statement-breakpoint
DROP TRIGGER "sites_data_version_update" ON "sites";--> statement-breakpoint
DROP TRIGGER "sites_data_version_delete" ON "sites";--> statement-breakpoint
DROP TRIGGER "hostnames_data_version_insert" ON "hostnames";--> statement-breakpoint
DROP TRIGGER "hostnames_data_version_update" ON "hostnames";--> statement-breakpoint
DROP TRIGGER "hostnames_data_version_delete" ON "hostnames";--> statement-breakpoint
DROP TRIGGER "assets_data_version_insert" ON "assets";--> statement-breakpoint
DROP TRIGGER "assets_data_version_update" ON "assets";--> statement-breakpoint
DROP TRIGGER "assets_data_version_delete" ON "assets";--> statement-breakpoint
DROP TRIGGER "story_versions_data_version_insert" ON "story_versions";--> statement-breakpoint
DROP TRIGGER "story_versions_data_version_update" ON "story_versions";--> statement-breakpoint
DROP TRIGGER "story_versions_data_version_delete" ON "story_versions";--> statement-breakpoint
DROP TRIGGER "story_topics_data_version_insert" ON "story_topics";--> statement-breakpoint
DROP TRIGGER "story_topics_data_version_update" ON "story_topics";--> statement-breakpoint
DROP TRIGGER "story_topics_data_version_delete" ON "story_topics";--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "stories_data_version" AFTER INSERT OR UPDATE OR DELETE ON "stories"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "organization_row_changed"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "topics_data_version" AFTER INSERT OR UPDATE OR DELETE ON "topics"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "organization_row_changed"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "approval_decisions_data_version" AFTER INSERT OR UPDATE OR DELETE ON "approval_decisions"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "organization_row_changed"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "webhook_endpoints_data_version" AFTER INSERT OR UPDATE OR DELETE ON "webhook_endpoints"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "organization_row_changed"('consecutive_failures');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "sites_data_version" AFTER INSERT OR UPDATE OR DELETE ON "sites"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "organization_row_changed"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "hostnames_data_version" AFTER INSERT OR UPDATE OR DELETE ON "hostnames"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "organization_row_changed"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "assets_data_version" AFTER INSERT OR UPDATE OR DELETE ON "assets"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "organization_row_changed"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "story_versions_data_version" AFTER INSERT OR UPDATE OR DELETE ON "story_versions"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "story_row_changed"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "story_topics_data_version" AFTER INSERT OR UPDATE OR DELETE ON "story_topics"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "story_row_changed"();
--> statement-breakpoint
DROP FUNCTION "organization_rows_changed"();--> statement-breakpoint
DROP FUNCTION "story_rows_changed"();--> statement-breakpoint
DROP FUNCTION "bump_data_version"(uuid[]);--> statement-breakpoint
DROP TRIGGER "organizations_data_version" ON "organizations";
--> statement-breakpoint
-- The organization's own row (name, newsroom_running, ...): moved at once, as it is seldom written.
CREATE OR REPLACE FUNCTION "organization_changed"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF to_jsonb(NEW) - 'updated_at' IS DISTINCT FROM to_jsonb(OLD) - 'updated_at' THEN
    PERFORM "bump_data_version_once"(NEW."id");
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "organizations_data_version" AFTER UPDATE ON "organizations"
  FOR EACH ROW EXECUTE FUNCTION "organization_changed"();
--> statement-breakpoint
ALTER TABLE "organizations" DROP COLUMN "data_version";
