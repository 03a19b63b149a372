-- Decision 181 (issue 78, step 3 of decision 164's plan): messages partitioned by month of
-- created_at, as the log tables (0085) and webhook deliveries out (0086): key (id, created_at), one
-- partition a UTC month (messages_pYYYY_MM) and a DEFAULT partition, so an insert never fails for want
-- of a month. Steps 1 and 2 made it possible: no foreign key references messages (0091, decision 180)
-- and a wamid is unique per organisation through message_wamids (0088, decision 174), so the unique
-- index messages_org_wamid_idx, which cannot span partitions, is not rebuilt.
--
-- A month's partition carries its default partition's storage parameters (messages' fillfactor of 80,
-- migration 0024, for its status updates in place): partitioned tables take none themselves.
CREATE OR REPLACE FUNCTION jumbe_ensure_month_partition(parent text, key text, month date) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  part text := parent || '_p' || to_char(month, 'YYYY_MM');
  lo timestamptz := date_trunc('month', month)::timestamp AT TIME ZONE 'UTC';
  hi timestamptz := (date_trunc('month', month) + interval '1 month')::timestamp AT TIME ZONE 'UTC';
  options text[];
BEGIN
  IF to_regclass(part) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', part, parent);
  SELECT c.reloptions INTO options FROM pg_class c WHERE c.oid = to_regclass(parent || '_default');
  IF options IS NOT NULL THEN
    EXECUTE format('ALTER TABLE %I SET (%s)', part, array_to_string(options, ', '));
  END IF;
  -- The admin audit log's append-only trigger lets this move through (and nothing else).
  PERFORM set_config('jumbe.partition_move', 'on', true);
  EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= $1 AND %I < $2 RETURNING *) INSERT INTO %I SELECT * FROM moved',
                 parent || '_default', key, key, part) USING lo, hi;
  PERFORM set_config('jumbe.partition_move', 'off', true);
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, part, lo, hi);
  RETURN true;
END $$;
--> statement-breakpoint
-- Built anew under its own name (the old table renamed aside), its partitions made before the copy so
-- each row is written once, straight into its month, with its id and seq. The new table has no
-- trigger yet: the copy adds nothing to analytics and writes no wamid key (each message keeps its own).
ALTER TABLE "messages" RENAME TO "messages_unpartitioned";
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"contact_id" uuid,
	"direction" text NOT NULL,
	"status" text NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"wamid" text,
	"phone_number_id" text,
	"message_type" text DEFAULT 'text' NOT NULL,
	"payload" jsonb,
	"sent_at" timestamp with time zone,
	"source" text,
	"recipient_phone" text,
	"recipient_wa_id" text,
	"template_id" uuid,
	"context_wamid" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"locked_until" timestamp with time zone,
	"accepted_at" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"read_at" timestamp with time zone,
	"failed_at" timestamp with time zone,
	"error_code" integer,
	"error_title" text,
	"error_details" text,
	"pricing_category" text,
	"pricing_type" text,
	"billable" boolean,
	"media_file_id" uuid,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "messages_next_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"campaign_id" uuid,
	"sent_by" uuid,
	"retried_at" timestamp with time zone,
	"price_cents" integer,
	"charge_state" text,
	"replied_at" timestamp with time zone,
	"automation_run_id" uuid,
	"channel" text DEFAULT 'whatsapp' NOT NULL,
	"body_expired_at" timestamp with time zone,
	CONSTRAINT "messages_id_created_at_pk" PRIMARY KEY("id","created_at")
) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
CREATE TABLE "messages_default" PARTITION OF "messages" DEFAULT WITH (fillfactor = 80);
--> statement-breakpoint
SELECT jumbe_ensure_month_partition('messages', 'created_at', m::date)
FROM generate_series(date_trunc('month', least(coalesce((SELECT min("created_at") FROM "messages_unpartitioned"), now()), now()) AT TIME ZONE 'UTC'),
                     date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months', interval '1 month') AS m;
--> statement-breakpoint
INSERT INTO "messages" ("id", "organization_id", "contact_id", "direction", "status", "body", "created_at", "wamid", "phone_number_id", "message_type", "payload", "sent_at", "source", "recipient_phone", "recipient_wa_id", "template_id", "context_wamid", "attempts", "next_attempt_at", "locked_until", "accepted_at", "delivered_at", "read_at", "failed_at", "error_code", "error_title", "error_details", "pricing_category", "pricing_type", "billable", "media_file_id", "seq", "campaign_id", "sent_by", "retried_at", "price_cents", "charge_state", "replied_at", "automation_run_id", "channel", "body_expired_at") OVERRIDING SYSTEM VALUE
  SELECT "id", "organization_id", "contact_id", "direction", "status", "body", "created_at", "wamid", "phone_number_id", "message_type", "payload", "sent_at", "source", "recipient_phone", "recipient_wa_id", "template_id", "context_wamid", "attempts", "next_attempt_at", "locked_until", "accepted_at", "delivered_at", "read_at", "failed_at", "error_code", "error_title", "error_details", "pricing_category", "pricing_type", "billable", "media_file_id", "seq", "campaign_id", "sent_by", "retried_at", "price_cents", "charge_state", "replied_at", "automation_run_id", "channel", "body_expired_at" FROM "messages_unpartitioned";
--> statement-breakpoint
-- The analytics functions take rows of messages: typed by the old table, they go with it and are made
-- again, unchanged, for the new one (0031's text).
DROP FUNCTION analytics_add_deltas(messages_unpartitioned[], messages_unpartitioned[]);
--> statement-breakpoint
DROP FUNCTION analytics_add_events(messages_unpartitioned[]);
--> statement-breakpoint
DROP TABLE "messages_unpartitioned";
--> statement-breakpoint
ALTER SEQUENCE "messages_next_seq_seq" RENAME TO "messages_seq_seq";
--> statement-breakpoint
SELECT setval('messages_seq_seq', coalesce((SELECT max("seq") FROM "messages"), 0) + 1, false);
--> statement-breakpoint
CREATE FUNCTION analytics_add_deltas(p_new messages[], p_old messages[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO message_stats_pending (organization_id, hour, phone_number_id, template_id, category,
                                     received, sent, delivered, read, failed, replied, spend_cents)
  SELECT * FROM (
    SELECT r.organization_id, date_trunc('hour', e.at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
           coalesce(r.phone_number_id, '') AS phone_number_id,
           CASE WHEN r.direction = 'outbound' THEN r.template_id END AS template_id,
           analytics_category(r.direction, r.pricing_category, t.category) AS category,
           coalesce(sum(r.sign) FILTER (WHERE e.kind = 'received'), 0) AS received,
           coalesce(sum(r.sign) FILTER (WHERE e.kind = 'sent'), 0) AS sent,
           coalesce(sum(r.sign) FILTER (WHERE e.kind = 'delivered'), 0) AS delivered,
           coalesce(sum(r.sign) FILTER (WHERE e.kind = 'read'), 0) AS read,
           coalesce(sum(r.sign) FILTER (WHERE e.kind = 'failed'), 0) AS failed,
           coalesce(sum(r.sign) FILTER (WHERE e.kind = 'replied'), 0) AS replied,
           coalesce(sum(r.sign * e.cents), 0) AS spend_cents
    FROM (SELECT 1 AS sign, n.* FROM unnest(p_new) n
          UNION ALL
          SELECT -1 AS sign, o.* FROM unnest(coalesce(p_old, '{}')) o) r
    LEFT JOIN message_templates t ON t.id = r.template_id
    CROSS JOIN LATERAL analytics_message_events(r.direction, r.status, r.sent_at, r.created_at, r.accepted_at,
      r.delivered_at, r.read_at, r.failed_at, r.replied_at, r.charge_state, r.price_cents) e
    GROUP BY 1, 2, 3, 4, 5
  ) d
  WHERE received <> 0 OR sent <> 0 OR delivered <> 0 OR read <> 0 OR failed <> 0 OR replied <> 0 OR spend_cents <> 0
$$;
--> statement-breakpoint
CREATE FUNCTION analytics_add_events(p_rows messages[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO analytics_events_pending (kind, organization_id, contact_id, phone_number_id, message_id, at)
  SELECT k.kind, r.organization_id, r.contact_id, coalesce(r.phone_number_id, ''), r.id, k.at
  FROM unnest(p_rows) r
  CROSS JOIN LATERAL (VALUES
    ('contact', CASE WHEN r.direction = 'inbound' THEN coalesce(r.sent_at, r.created_at) ELSE r.accepted_at END),
    ('inbound', CASE WHEN r.direction = 'inbound' THEN coalesce(r.sent_at, r.created_at) END),
    ('response', CASE WHEN r.direction = 'outbound' AND (r.source = 'inbox' OR (r.source = 'api' AND r.template_id IS NULL)) THEN r.accepted_at END)
  ) AS k(kind, at)
  WHERE r.contact_id IS NOT NULL AND k.at IS NOT NULL
$$;
--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_media_file_id_media_files_id_fk" FOREIGN KEY ("media_file_id") REFERENCES "public"."media_files"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_sent_by_users_id_fk" FOREIGN KEY ("sent_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "messages_org_created_idx" ON "messages" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "messages_org_body_kept_idx" ON "messages" USING btree ("organization_id","created_at") WHERE body_expired_at is null;--> statement-breakpoint
CREATE INDEX "messages_contact_idx" ON "messages" USING btree ("contact_id","created_at") WHERE contact_id is not null;--> statement-breakpoint
CREATE INDEX "messages_dispatch_idx" ON "messages" USING btree ("next_attempt_at") WHERE direction = 'outbound' and accepted_at is null and failed_at is null and next_attempt_at is not null;--> statement-breakpoint
CREATE INDEX "messages_pair_idx" ON "messages" USING btree ("phone_number_id","recipient_phone","accepted_at") WHERE accepted_at is not null;--> statement-breakpoint
CREATE INDEX "messages_campaign_idx" ON "messages" USING btree ("campaign_id") WHERE campaign_id is not null;--> statement-breakpoint
CREATE INDEX "messages_campaign_waiting_idx" ON "messages" USING btree ("campaign_id") WHERE campaign_id is not null and accepted_at is null and failed_at is null;--> statement-breakpoint
CREATE INDEX "messages_queued_pair_idx" ON "messages" USING btree ("organization_id","phone_number_id","recipient_phone","seq") WHERE direction = 'outbound' and accepted_at is null and failed_at is null;--> statement-breakpoint
-- Organisation first where the server has btree_gin (decision 177, 179), as migration 0089 made it.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'btree_gin') THEN
    CREATE INDEX "messages_inbox_search_trgm_idx" ON "messages" USING gin ("organization_id",lower("body") gin_trgm_ops) WHERE contact_id is not null and (direction = 'inbound' or source = 'inbox');
  ELSE
    CREATE INDEX "messages_inbox_search_trgm_idx" ON "messages" USING gin (lower("body") gin_trgm_ops) WHERE contact_id is not null and (direction = 'inbound' or source = 'inbox');
  END IF;
END $$;
--> statement-breakpoint
CREATE TRIGGER messages_analytics_insert AFTER INSERT ON messages
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION messages_analytics_insert();
--> statement-breakpoint
CREATE TRIGGER messages_analytics_update AFTER UPDATE ON messages
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION messages_analytics_update();
--> statement-breakpoint
CREATE TRIGGER messages_wamid_insert AFTER INSERT ON messages FOR EACH ROW WHEN (NEW.wamid IS NOT NULL)
  EXECUTE FUNCTION message_wamids_keep();
--> statement-breakpoint
CREATE TRIGGER messages_wamid_update AFTER UPDATE OF wamid, organization_id ON messages FOR EACH ROW
  WHEN (NEW.wamid IS DISTINCT FROM OLD.wamid OR NEW.organization_id IS DISTINCT FROM OLD.organization_id)
  EXECUTE FUNCTION message_wamids_keep();
--> statement-breakpoint
CREATE TRIGGER messages_wamid_delete AFTER DELETE ON messages REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT EXECUTE FUNCTION message_wamids_remove();
--> statement-breakpoint
CREATE TRIGGER messages_references_delete AFTER DELETE ON messages REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT EXECUTE FUNCTION messages_references_remove();
--> statement-breakpoint
-- Before a month of messages is dropped (partitions.ts, past the platform's longest message retention):
-- what refers to its messages goes as their deletion would have taken it (decision 180's trigger, which a
-- dropped partition does not fire), and their wamid keys, set based by joining the month's partition.
-- The name comes from the catalogue (the partitions of messages), never from input.
CREATE FUNCTION messages_release_partition(part text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF part !~ '^messages_p[0-9]{4}_[0-9]{2}$' THEN
    RAISE EXCEPTION 'not a month of messages: %', part USING ERRCODE = 'invalid_parameter_value';
  END IF;
  EXECUTE format('DELETE FROM automation_runs r USING %I m WHERE r.message_id = m.id', part);
  EXECUTE format('DELETE FROM hubspot_logged_messages h USING %I m WHERE h.message_id = m.id', part);
  EXECUTE format('DELETE FROM sms_fallbacks f USING %I m WHERE f.source_message_id = m.id', part);
  EXECUTE format('UPDATE orders o SET message_id = NULL FROM %I m WHERE o.message_id = m.id', part);
  EXECUTE format('UPDATE shopify_events e SET message_id = NULL FROM %I m WHERE e.message_id = m.id', part);
  EXECUTE format('DELETE FROM message_wamids k USING %I m WHERE k.message_id = m.id', part);
END $$;
