-- An organization's data_version becomes the sum of several rows: a transaction moves the row of
-- its connection's server process (pg_backend_pid() % 16). With one row, every transaction of an
-- organization that changed an answer locked that row at its commit and held it until the
-- commit ended, so one organization's commits went one at a time. Readers sum the rows; the sum
-- still counts the organization's committed moves, one per transaction.
ALTER TABLE "organization_data_versions" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "organization_data_versions" DROP CONSTRAINT "organization_data_versions_pkey";--> statement-breakpoint
ALTER TABLE "organization_data_versions" ADD CONSTRAINT "organization_data_versions_organization_id_shard_pk" PRIMARY KEY("organization_id","shard");--> statement-breakpoint
CREATE OR REPLACE FUNCTION "bump_data_version_once"("organization" uuid) RETURNS void
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
  INSERT INTO "organization_data_versions" ("organization_id", "shard", "data_version")
    VALUES ("organization", pg_backend_pid() % 16, 1)
  ON CONFLICT ("organization_id", "shard")
    DO UPDATE SET "data_version" = "organization_data_versions"."data_version" + 1;
END;
$$;
