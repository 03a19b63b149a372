-- Issue 78 (decisions 164 and 165): the log tables that grow for ever become partitioned by month
-- (activity_logs and admin_audit_log by created_at, webhook_events by received_at), and each
-- organisation says how long its message bodies, media and logs are kept.
--
-- A table cannot be turned into a partitioned one in place: each is built anew under a temporary
-- name, filled from the old one (ids kept), the old one dropped and the new one renamed, then its
-- indexes, foreign keys and triggers are made again on the parent (PostgreSQL gives each partition
-- its own). Each table has a default partition, so a row never fails for want of a month; the
-- partitions recurring job creates months ahead and moves any row the default took for them.
--
-- jumbe_ensure_month_partition(parent, key, month): the month's partition, if it is not there yet
-- (answers whether it made one). Rows of that month in the default partition move into it first:
-- PostgreSQL refuses to attach a range the default holds rows of.
CREATE FUNCTION jumbe_ensure_month_partition(parent text, key text, month date) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  part text := parent || '_p' || to_char(month, 'YYYY_MM');
  lo timestamptz := date_trunc('month', month)::timestamp AT TIME ZONE 'UTC';
  hi timestamptz := (date_trunc('month', month) + interval '1 month')::timestamp AT TIME ZONE 'UTC';
BEGIN
  IF to_regclass(part) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', part, parent);
  -- The admin audit log's append-only trigger lets this move through (and nothing else).
  PERFORM set_config('jumbe.partition_move', 'on', true);
  EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= $1 AND %I < $2 RETURNING *) INSERT INTO %I SELECT * FROM moved',
                 parent || '_default', key, key, part) USING lo, hi;
  PERFORM set_config('jumbe.partition_move', 'off', true);
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, part, lo, hi);
  RETURN true;
END $$;
--> statement-breakpoint
-- jumbe_drop_month_partitions(parent, before): drops the parent's monthly partitions that end at or
-- before `before` as a whole (no row-by-row delete, no trigger); answers the names dropped.
CREATE FUNCTION jumbe_drop_month_partitions(parent text, before timestamptz) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  child text;
BEGIN
  FOR child IN
    SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = to_regclass(parent) AND c.relname ~ ('^' || parent || '_p[0-9]{4}_[0-9]{2}$')
    ORDER BY c.relname
  LOOP
    IF (to_date(right(child, 7), 'YYYY_MM') + interval '1 month')::timestamp AT TIME ZONE 'UTC' <= before THEN
      EXECUTE format('ALTER TABLE %I DETACH PARTITION %I', parent, child);
      EXECUTE format('DROP TABLE %I', child);
      RETURN NEXT child;
    END IF;
  END LOOP;
END $$;
--> statement-breakpoint
-- The admin audit log stays append-only; only a partition's creation moves rows out of its default.
CREATE OR REPLACE FUNCTION admin_audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('jumbe.partition_move', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'admin_audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
--> statement-breakpoint
-- activity_logs
CREATE TABLE "activity_logs_next" (
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "activity_logs_next_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" uuid NOT NULL,
	"user_id" uuid,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"action" text NOT NULL,
	"details" text DEFAULT '' NOT NULL,
	"ip_address" text,
	"user_agent" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "activity_logs_id_created_at_pk" PRIMARY KEY("id","created_at")
) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
-- Its default partition before the copy: a partitioned table with no partition takes no row.
CREATE TABLE "activity_logs_default" PARTITION OF "activity_logs_next" DEFAULT;
--> statement-breakpoint
INSERT INTO "activity_logs_next" OVERRIDING SYSTEM VALUE
  SELECT "id", "organization_id", "user_id", "type", "status", "action", "details", "ip_address", "user_agent", "created_at" FROM "activity_logs";
--> statement-breakpoint
DROP TABLE "activity_logs";
--> statement-breakpoint
ALTER TABLE "activity_logs_next" RENAME TO "activity_logs";
--> statement-breakpoint
ALTER SEQUENCE "activity_logs_next_id_seq" RENAME TO "activity_logs_id_seq";
--> statement-breakpoint
SELECT setval('activity_logs_id_seq', coalesce((SELECT max("id") FROM "activity_logs"), 0) + 1, false);
--> statement-breakpoint
-- webhook_events
CREATE TABLE "webhook_events_next" (
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "webhook_events_next_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"body" text NOT NULL,
	"signature" text NOT NULL,
	"processed_at" timestamp with time zone,
	"outcome" text,
	CONSTRAINT "webhook_events_id_received_at_pk" PRIMARY KEY("id","received_at")
) PARTITION BY RANGE ("received_at");
--> statement-breakpoint
-- Its default partition before the copy: a partitioned table with no partition takes no row.
CREATE TABLE "webhook_events_default" PARTITION OF "webhook_events_next" DEFAULT;
--> statement-breakpoint
INSERT INTO "webhook_events_next" OVERRIDING SYSTEM VALUE
  SELECT "id", "received_at", "body", "signature", "processed_at", "outcome" FROM "webhook_events";
--> statement-breakpoint
DROP TABLE "webhook_events";
--> statement-breakpoint
ALTER TABLE "webhook_events_next" RENAME TO "webhook_events";
--> statement-breakpoint
ALTER SEQUENCE "webhook_events_next_id_seq" RENAME TO "webhook_events_id_seq";
--> statement-breakpoint
SELECT setval('webhook_events_id_seq', coalesce((SELECT max("id") FROM "webhook_events"), 0) + 1, false);
--> statement-breakpoint
-- admin_audit_log (its append-only trigger refuses deletes, not a DROP)
CREATE TABLE "admin_audit_log_next" (
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "admin_audit_log_next_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"admin_id" uuid NOT NULL,
	"admin_email" text NOT NULL,
	"action" text NOT NULL,
	"organization_id" uuid,
	"target_type" text NOT NULL,
	"target_id" text,
	"reason" text,
	"before" jsonb,
	"after" jsonb,
	"ip_address" text,
	"user_agent" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "admin_audit_log_id_created_at_pk" PRIMARY KEY("id","created_at")
) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
-- Its default partition before the copy: a partitioned table with no partition takes no row.
CREATE TABLE "admin_audit_log_default" PARTITION OF "admin_audit_log_next" DEFAULT;
--> statement-breakpoint
INSERT INTO "admin_audit_log_next" OVERRIDING SYSTEM VALUE
  SELECT "id", "admin_id", "admin_email", "action", "organization_id", "target_type", "target_id", "reason", "before", "after", "ip_address", "user_agent", "created_at" FROM "admin_audit_log";
--> statement-breakpoint
DROP TABLE "admin_audit_log";
--> statement-breakpoint
ALTER TABLE "admin_audit_log_next" RENAME TO "admin_audit_log";
--> statement-breakpoint
ALTER SEQUENCE "admin_audit_log_next_id_seq" RENAME TO "admin_audit_log_id_seq";
--> statement-breakpoint
SELECT setval('admin_audit_log_id_seq', coalesce((SELECT max("id") FROM "admin_audit_log"), 0) + 1, false);
--> statement-breakpoint
-- One partition per month from each table's oldest row's to three months ahead, their rows moved
-- out of the default partition the copy wrote them into.
SELECT jumbe_ensure_month_partition(t.parent, t.key, m::date)
FROM (VALUES ('activity_logs', 'created_at', (SELECT min("created_at") FROM "activity_logs")),
             ('webhook_events', 'received_at', (SELECT min("received_at") FROM "webhook_events")),
             ('admin_audit_log', 'created_at', (SELECT min("created_at") FROM "admin_audit_log"))) AS t(parent, key, oldest),
     generate_series(date_trunc('month', least(coalesce(t.oldest, now()), now()) AT TIME ZONE 'UTC'),
                     date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months', interval '1 month') AS m;
--> statement-breakpoint
ALTER TABLE "activity_logs" ADD CONSTRAINT "activity_logs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_logs" ADD CONSTRAINT "activity_logs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activity_logs_org_created_idx" ON "activity_logs" USING btree ("organization_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "activity_logs_org_type_created_idx" ON "activity_logs" USING btree ("organization_id","type","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "activity_logs_org_status_created_idx" ON "activity_logs" USING btree ("organization_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "activity_logs_created_idx" ON "activity_logs" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE TRIGGER activity_logs_count_insert AFTER INSERT ON activity_logs REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION activity_counts_add();
--> statement-breakpoint
CREATE TRIGGER activity_logs_count_delete AFTER DELETE ON activity_logs REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION activity_counts_remove();
--> statement-breakpoint
CREATE INDEX "webhook_events_unprocessed_idx" ON "webhook_events" USING btree ("id") WHERE processed_at is null;--> statement-breakpoint
CREATE INDEX "webhook_events_received_idx" ON "webhook_events" USING btree ("received_at");--> statement-breakpoint
CREATE INDEX "webhook_events_waba_idx" ON "webhook_events" USING btree ((substring(body from '"entry"\s*:\s*\[\s*\{\s*"id"\s*:\s*"([0-9]{1,32})"')),"received_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "admin_audit_log_created_idx" ON "admin_audit_log" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "admin_audit_log_org_idx" ON "admin_audit_log" USING btree ("organization_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE TRIGGER admin_audit_log_append_only BEFORE UPDATE OR DELETE ON admin_audit_log
  FOR EACH ROW EXECUTE FUNCTION admin_audit_log_refuse_change();
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "message_retention_days" integer DEFAULT 730 NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "media_retention_days" integer DEFAULT 90 NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "log_retention_days" integer DEFAULT 90 NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "body_expired_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_message_retention_check" CHECK (message_retention_days between 30 and 2555);--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_media_retention_check" CHECK (media_retention_days between 30 and message_retention_days);--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_log_retention_check" CHECK (log_retention_days between 30 and 365);--> statement-breakpoint
CREATE INDEX "messages_org_body_kept_idx" ON "messages" USING btree ("organization_id","created_at") WHERE body_expired_at is null;
