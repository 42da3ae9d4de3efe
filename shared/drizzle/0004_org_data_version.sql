ALTER TABLE "organizations" ADD COLUMN "data_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Every change that alters a client API answer moves its organization's data_version forward
-- in the same transaction, whoever writes (internal API, web app, webhooks service, seeds).
-- Statement-level triggers with transition tables: one organization update per statement,
-- not per row, so a bulk seed costs one bump per organization and statement.
CREATE FUNCTION "bump_data_version"("organization_ids" uuid[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(organization_ids) = 0 THEN
    RETURN;
  END IF;
  -- Locks in id order, so two statements touching the same organizations cannot deadlock here.
  PERFORM 1 FROM "organizations" WHERE "id" = ANY(organization_ids) ORDER BY "id" FOR NO KEY UPDATE;
  UPDATE "organizations" SET "data_version" = "data_version" + 1 WHERE "id" = ANY(organization_ids);
END;
$$;
--> statement-breakpoint
-- Rows that carry organization_id. TG_ARGV names columns whose change alone alters no answer.
CREATE FUNCTION "organization_rows_changed"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM "bump_data_version"(ARRAY(SELECT DISTINCT "organization_id" FROM "new_rows"));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM "bump_data_version"(ARRAY(SELECT DISTINCT "organization_id" FROM "old_rows"));
  ELSE
    -- TG_ARGV is null, not empty, for a trigger without arguments.
    PERFORM "bump_data_version"(ARRAY(
      SELECT "n"."organization_id" FROM "new_rows" "n" JOIN "old_rows" "o" ON "o"."id" = "n"."id"
      WHERE to_jsonb("n") - coalesce(TG_ARGV, '{}') IS DISTINCT FROM to_jsonb("o") - coalesce(TG_ARGV, '{}')
      UNION SELECT "o"."organization_id" FROM "new_rows" "n" JOIN "old_rows" "o" ON "o"."id" = "n"."id"
      WHERE "n"."organization_id" IS DISTINCT FROM "o"."organization_id"));
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- Rows of a story (versions, topics): the organization is the story's.
CREATE FUNCTION "story_rows_changed"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM "bump_data_version"(ARRAY(
      SELECT DISTINCT "s"."organization_id" FROM "new_rows" "r" JOIN "stories" "s" ON "s"."id" = "r"."story_id"));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM "bump_data_version"(ARRAY(
      SELECT DISTINCT "s"."organization_id" FROM "old_rows" "r" JOIN "stories" "s" ON "s"."id" = "r"."story_id"));
  ELSE
    PERFORM "bump_data_version"(ARRAY(
      SELECT "s"."organization_id" FROM "new_rows" "r" JOIN "stories" "s" ON "s"."id" = "r"."story_id"
      UNION SELECT "s"."organization_id" FROM "old_rows" "r" JOIN "stories" "s" ON "s"."id" = "r"."story_id"));
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- The organization's own row (name, newsroom_running, ...): moved forward by the update itself.
CREATE FUNCTION "organization_changed"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."data_version" = OLD."data_version"
    AND to_jsonb(NEW) - 'updated_at' IS DISTINCT FROM to_jsonb(OLD) - 'updated_at' THEN
    NEW."data_version" := OLD."data_version" + 1;
  END IF;
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "organizations_data_version" BEFORE UPDATE ON "organizations"
  FOR EACH ROW EXECUTE FUNCTION "organization_changed"();
--> statement-breakpoint
CREATE TRIGGER "stories_data_version_insert" AFTER INSERT ON "stories"
  REFERENCING NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "stories_data_version_update" AFTER UPDATE ON "stories"
  REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "stories_data_version_delete" AFTER DELETE ON "stories"
  REFERENCING OLD TABLE AS "old_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "topics_data_version_insert" AFTER INSERT ON "topics"
  REFERENCING NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "topics_data_version_update" AFTER UPDATE ON "topics"
  REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "topics_data_version_delete" AFTER DELETE ON "topics"
  REFERENCING OLD TABLE AS "old_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "approval_decisions_data_version_insert" AFTER INSERT ON "approval_decisions"
  REFERENCING NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "approval_decisions_data_version_update" AFTER UPDATE ON "approval_decisions"
  REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "approval_decisions_data_version_delete" AFTER DELETE ON "approval_decisions"
  REFERENCING OLD TABLE AS "old_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "webhook_endpoints_data_version_insert" AFTER INSERT ON "webhook_endpoints"
  REFERENCING NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"('consecutive_failures');
--> statement-breakpoint
CREATE TRIGGER "webhook_endpoints_data_version_update" AFTER UPDATE ON "webhook_endpoints"
  REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"('consecutive_failures');
--> statement-breakpoint
CREATE TRIGGER "webhook_endpoints_data_version_delete" AFTER DELETE ON "webhook_endpoints"
  REFERENCING OLD TABLE AS "old_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"('consecutive_failures');
--> statement-breakpoint
CREATE TRIGGER "sites_data_version_insert" AFTER INSERT ON "sites"
  REFERENCING NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "sites_data_version_update" AFTER UPDATE ON "sites"
  REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "sites_data_version_delete" AFTER DELETE ON "sites"
  REFERENCING OLD TABLE AS "old_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "hostnames_data_version_insert" AFTER INSERT ON "hostnames"
  REFERENCING NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "hostnames_data_version_update" AFTER UPDATE ON "hostnames"
  REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "hostnames_data_version_delete" AFTER DELETE ON "hostnames"
  REFERENCING OLD TABLE AS "old_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "assets_data_version_insert" AFTER INSERT ON "assets"
  REFERENCING NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "assets_data_version_update" AFTER UPDATE ON "assets"
  REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "assets_data_version_delete" AFTER DELETE ON "assets"
  REFERENCING OLD TABLE AS "old_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "organization_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "story_versions_data_version_insert" AFTER INSERT ON "story_versions"
  REFERENCING NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "story_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "story_versions_data_version_update" AFTER UPDATE ON "story_versions"
  REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "story_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "story_versions_data_version_delete" AFTER DELETE ON "story_versions"
  REFERENCING OLD TABLE AS "old_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "story_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "story_topics_data_version_insert" AFTER INSERT ON "story_topics"
  REFERENCING NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "story_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "story_topics_data_version_update" AFTER UPDATE ON "story_topics"
  REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "story_rows_changed"();
--> statement-breakpoint
CREATE TRIGGER "story_topics_data_version_delete" AFTER DELETE ON "story_topics"
  REFERENCING OLD TABLE AS "old_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "story_rows_changed"();
