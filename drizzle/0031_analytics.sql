CREATE TABLE "analytics_events_pending" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "analytics_events_pending_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"organization_id" uuid NOT NULL,
	"contact_id" uuid,
	"phone_number_id" text DEFAULT '' NOT NULL,
	"message_id" uuid NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contact_active_periods" (
	"organization_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"phone_number_id" text NOT NULL,
	"grain" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "contact_active_periods_contact_id_phone_number_id_grain_at_pk" PRIMARY KEY("contact_id","phone_number_id","grain","at")
);
--> statement-breakpoint
CREATE TABLE "contact_first_counts" (
	"organization_id" uuid NOT NULL,
	"phone_number_id" text NOT NULL,
	"grain" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"previous_at" timestamp with time zone NOT NULL,
	"contacts" bigint NOT NULL,
	CONSTRAINT "contact_first_counts_organization_id_phone_number_id_grain_at_previous_at_pk" PRIMARY KEY("organization_id","phone_number_id","grain","at","previous_at")
);
--> statement-breakpoint
CREATE TABLE "message_stats_daily" (
	"organization_id" uuid NOT NULL,
	"phone_number_id" text DEFAULT '' NOT NULL,
	"template_id" uuid,
	"category" text DEFAULT '' NOT NULL,
	"day" date NOT NULL,
	"received" bigint DEFAULT 0 NOT NULL,
	"sent" bigint DEFAULT 0 NOT NULL,
	"delivered" bigint DEFAULT 0 NOT NULL,
	"read" bigint DEFAULT 0 NOT NULL,
	"failed" bigint DEFAULT 0 NOT NULL,
	"replied" bigint DEFAULT 0 NOT NULL,
	"spend_cents" bigint DEFAULT 0 NOT NULL,
	"responses" bigint DEFAULT 0 NOT NULL,
	"response_seconds" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "message_stats_daily_key" UNIQUE NULLS NOT DISTINCT("organization_id","day","phone_number_id","template_id","category")
);
--> statement-breakpoint
CREATE TABLE "message_stats_hourly" (
	"organization_id" uuid NOT NULL,
	"phone_number_id" text DEFAULT '' NOT NULL,
	"template_id" uuid,
	"category" text DEFAULT '' NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"received" bigint DEFAULT 0 NOT NULL,
	"sent" bigint DEFAULT 0 NOT NULL,
	"delivered" bigint DEFAULT 0 NOT NULL,
	"read" bigint DEFAULT 0 NOT NULL,
	"failed" bigint DEFAULT 0 NOT NULL,
	"replied" bigint DEFAULT 0 NOT NULL,
	"spend_cents" bigint DEFAULT 0 NOT NULL,
	"responses" bigint DEFAULT 0 NOT NULL,
	"response_seconds" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "message_stats_hourly_key" UNIQUE NULLS NOT DISTINCT("organization_id","hour","phone_number_id","template_id","category")
);
--> statement-breakpoint
CREATE TABLE "message_stats_pending" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "message_stats_pending_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"hour" timestamp with time zone NOT NULL,
	"organization_id" uuid NOT NULL,
	"phone_number_id" text DEFAULT '' NOT NULL,
	"template_id" uuid,
	"category" text DEFAULT '' NOT NULL,
	"received" bigint DEFAULT 0 NOT NULL,
	"sent" bigint DEFAULT 0 NOT NULL,
	"delivered" bigint DEFAULT 0 NOT NULL,
	"read" bigint DEFAULT 0 NOT NULL,
	"failed" bigint DEFAULT 0 NOT NULL,
	"replied" bigint DEFAULT 0 NOT NULL,
	"spend_cents" bigint DEFAULT 0 NOT NULL,
	"responses" bigint DEFAULT 0 NOT NULL,
	"response_seconds" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "message_volume_hourly" (
	"organization_id" uuid NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"phone_number_id" text NOT NULL,
	"sent" bigint DEFAULT 0 NOT NULL,
	"delivered" bigint DEFAULT 0 NOT NULL,
	"read" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "message_volume_hourly_organization_id_hour_phone_number_id_pk" PRIMARY KEY("organization_id","hour","phone_number_id")
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "replied_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "contact_active_periods" ADD CONSTRAINT "contact_active_periods_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_first_counts" ADD CONSTRAINT "contact_first_counts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_stats_daily" ADD CONSTRAINT "message_stats_daily_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_stats_hourly" ADD CONSTRAINT "message_stats_hourly_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_volume_hourly" ADD CONSTRAINT "message_volume_hourly_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "contact_active_periods_at_idx" ON "contact_active_periods" USING btree ("grain","at");--> statement-breakpoint
CREATE INDEX "contact_active_periods_org_idx" ON "contact_active_periods" USING btree ("organization_id");--> statement-breakpoint
-- Analytics (decision 036). The Meta pricing category a message counts under: Meta's own word once a
-- status reported it, else its template's category, else "service" (a free-form reply). A plain
-- expression, so the planner inlines it.
CREATE OR REPLACE FUNCTION analytics_category(p_direction text, p_pricing_category text, p_template_category text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN p_direction = 'inbound' THEN ''
    WHEN lower(coalesce(p_pricing_category, p_template_category)) LIKE 'marketing%' THEN 'marketing'
    WHEN lower(coalesce(p_pricing_category, p_template_category)) LIKE 'authentication%' THEN 'authentication'
    WHEN lower(coalesce(p_pricing_category, p_template_category)) = 'utility' THEN 'utility'
    ELSE 'service' END
$$;
--> statement-breakpoint
-- A message's figures, each in the hour its event happened (decision 036): received (inbound), sent
-- (Meta accepted it) with its charge, delivered (a read message was delivered even when Meta's
-- "delivered" never came), read, failed, and replied.
CREATE OR REPLACE FUNCTION analytics_message_events(
  p_direction text, p_status text, p_sent_at timestamptz, p_created_at timestamptz, p_accepted_at timestamptz,
  p_delivered_at timestamptz, p_read_at timestamptz, p_failed_at timestamptz, p_replied_at timestamptz,
  p_charge_state text, p_price_cents int
) RETURNS TABLE (kind text, at timestamptz, cents bigint) LANGUAGE sql IMMUTABLE AS $$
  SELECT e.kind, e.at, e.cents FROM (VALUES
    ('received', CASE WHEN p_direction = 'inbound' THEN coalesce(p_sent_at, p_created_at) END, 0::bigint),
    ('sent', CASE WHEN p_direction = 'outbound' THEN p_accepted_at END,
             CASE WHEN p_charge_state = 'charged' THEN coalesce(p_price_cents, 0) ELSE 0 END::bigint),
    ('delivered', CASE WHEN p_direction = 'outbound' THEN coalesce(p_delivered_at, p_read_at) END, 0::bigint),
    ('read', CASE WHEN p_direction = 'outbound' THEN p_read_at END, 0::bigint),
    ('failed', CASE WHEN p_direction = 'outbound' AND p_status = 'failed' THEN p_failed_at END, 0::bigint),
    ('replied', CASE WHEN p_direction = 'outbound' THEN p_replied_at END, 0::bigint)
  ) AS e(kind, at, cents)
  WHERE e.at IS NOT NULL
$$;
--> statement-breakpoint
-- What message rows add (p_new, +1) and take away (p_old, -1), summed per hour and dimension; a group
-- whose changes cancel out is not written.
CREATE OR REPLACE FUNCTION analytics_add_deltas(p_new messages[], p_old messages[]) RETURNS void LANGUAGE sql AS $$
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
-- The fold's work beyond adding: a contact active (unique contacts), a customer's message (which
-- answers a business message), and an answer from the inbox or a free-form one from the API (which may end
-- a wait; a template sent through the API is a notification, not an answer).
CREATE OR REPLACE FUNCTION analytics_add_events(p_rows messages[]) RETURNS void LANGUAGE sql AS $$
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
CREATE OR REPLACE FUNCTION messages_analytics_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  counted messages[];
BEGIN
  -- A message queued for sending has no figure yet: only those with one are looked at.
  SELECT array_agg(n) INTO counted FROM inserted n
   WHERE n.direction = 'inbound' OR n.accepted_at IS NOT NULL OR n.failed_at IS NOT NULL;
  IF counted IS NOT NULL THEN
    PERFORM analytics_add_deltas(counted, NULL);
    PERFORM analytics_add_events(counted);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION messages_analytics_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  newer messages[];
  older messages[];
  accepted messages[];
BEGIN
  -- Only rows whose figures can have moved (the dispatcher's claims and leases change none of these
  -- columns), and the business messages Meta has just accepted: their contact was active, and they
  -- may answer a waiting customer.
  SELECT array_agg(n) FILTER (WHERE c.changed), array_agg(o) FILTER (WHERE c.changed),
         array_agg(n) FILTER (WHERE n.direction = 'outbound' AND n.accepted_at IS NOT NULL AND o.accepted_at IS NULL)
    INTO newer, older, accepted
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    CROSS JOIN LATERAL (SELECT
      (o.direction, o.status, o.phone_number_id, o.template_id, o.pricing_category, o.sent_at, o.created_at, o.accepted_at,
       o.delivered_at, o.read_at, o.failed_at, o.replied_at, o.charge_state, o.price_cents)
      IS DISTINCT FROM
      (n.direction, n.status, n.phone_number_id, n.template_id, n.pricing_category, n.sent_at, n.created_at, n.accepted_at,
       n.delivered_at, n.read_at, n.failed_at, n.replied_at, n.charge_state, n.price_cents) AS changed) c;
  IF newer IS NOT NULL THEN
    PERFORM analytics_add_deltas(newer, older);
  END IF;
  IF accepted IS NOT NULL THEN
    PERFORM analytics_add_events(accepted);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER messages_analytics_insert AFTER INSERT ON messages
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION messages_analytics_insert();
--> statement-breakpoint
CREATE TRIGGER messages_analytics_update AFTER UPDATE ON messages
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION messages_analytics_update();
--> statement-breakpoint
-- A contact active in a period (an hour, or a Nairobi day at its midnight), on one number or on any
-- (''): the period is recorded once, and contact_first_counts keeps, for each period, how many of its
-- contacts were last active in each earlier period. A period recorded between two others (a message
-- that arrived late) moves the later one's count from the earlier period to this one, so the counts
-- stay exact in any order of arrival.
CREATE OR REPLACE FUNCTION analytics_note_contact(p_org uuid, p_contact uuid, p_number text, p_grain text, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  prev timestamptz;
  nxt timestamptz;
BEGIN
  INSERT INTO contact_active_periods (organization_id, contact_id, phone_number_id, grain, at)
  VALUES (p_org, p_contact, p_number, p_grain, p_at) ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN RETURN; END IF;
  SELECT coalesce(max(at), '-infinity') INTO prev FROM contact_active_periods
   WHERE contact_id = p_contact AND phone_number_id = p_number AND grain = p_grain AND at < p_at;
  SELECT min(at) INTO nxt FROM contact_active_periods
   WHERE contact_id = p_contact AND phone_number_id = p_number AND grain = p_grain AND at > p_at;
  INSERT INTO contact_first_counts (organization_id, phone_number_id, grain, at, previous_at, contacts)
  VALUES (p_org, p_number, p_grain, p_at, prev, 1)
  ON CONFLICT (organization_id, phone_number_id, grain, at, previous_at) DO UPDATE SET contacts = contact_first_counts.contacts + 1;
  IF nxt IS NOT NULL THEN
    UPDATE contact_first_counts SET contacts = contacts - 1
     WHERE organization_id = p_org AND phone_number_id = p_number AND grain = p_grain AND at = nxt AND previous_at = prev;
    INSERT INTO contact_first_counts (organization_id, phone_number_id, grain, at, previous_at, contacts)
    VALUES (p_org, p_number, p_grain, nxt, p_at, 1)
    ON CONFLICT (organization_id, phone_number_id, grain, at, previous_at) DO UPDATE SET contacts = contact_first_counts.contacts + 1;
  END IF;
END $$;
--> statement-breakpoint
-- Builds one organisation's figures (or every organisation's) from the messages already stored: this
-- migration runs it for the messages from before it, the benchmark after loading millions of rows with
-- the trigger off. The figures go to the pending deltas, which the fold adds up; active periods and their
-- counts are built here in one pass each; customers' messages and replies go to the fold as events
-- when p_events (replied and response times need a look at each conversation).
CREATE OR REPLACE FUNCTION analytics_backfill(p_org uuid, p_events boolean) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO message_stats_pending (organization_id, hour, phone_number_id, template_id, category,
                                     received, sent, delivered, read, failed, replied, spend_cents)
  SELECT m.organization_id, date_trunc('hour', e.at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', coalesce(m.phone_number_id, ''),
         CASE WHEN m.direction = 'outbound' THEN m.template_id END,
         analytics_category(m.direction, m.pricing_category, t.category),
         count(*) FILTER (WHERE e.kind = 'received'), count(*) FILTER (WHERE e.kind = 'sent'),
         count(*) FILTER (WHERE e.kind = 'delivered'), count(*) FILTER (WHERE e.kind = 'read'),
         count(*) FILTER (WHERE e.kind = 'failed'), count(*) FILTER (WHERE e.kind = 'replied'), coalesce(sum(e.cents), 0)
  FROM messages m
  LEFT JOIN message_templates t ON t.id = m.template_id
  CROSS JOIN LATERAL analytics_message_events(m.direction, m.status, m.sent_at, m.created_at, m.accepted_at,
    m.delivered_at, m.read_at, m.failed_at, m.replied_at, m.charge_state, m.price_cents) e
  WHERE p_org IS NULL OR m.organization_id = p_org
  GROUP BY 1, 2, 3, 4, 5;

  INSERT INTO contact_active_periods (organization_id, contact_id, phone_number_id, grain, at)
  SELECT DISTINCT m.organization_id, m.contact_id, n.number, g.grain,
         CASE g.grain WHEN 'hour' THEN date_trunc('hour', a.at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
                      ELSE date_trunc('day', a.at AT TIME ZONE 'Africa/Nairobi') AT TIME ZONE 'Africa/Nairobi' END
  FROM messages m
  CROSS JOIN LATERAL (SELECT CASE WHEN m.direction = 'inbound' THEN coalesce(m.sent_at, m.created_at) ELSE m.accepted_at END AS at) a
  CROSS JOIN LATERAL (VALUES (coalesce(m.phone_number_id, '')), ('')) AS n(number)
  CROSS JOIN (VALUES ('hour'), ('day')) AS g(grain)
  WHERE (p_org IS NULL OR m.organization_id = p_org) AND m.contact_id IS NOT NULL AND a.at IS NOT NULL
    AND (g.grain = 'day' OR a.at >= now() - interval '60 hours')
  ON CONFLICT DO NOTHING;

  DELETE FROM contact_first_counts WHERE p_org IS NULL OR organization_id = p_org;
  INSERT INTO contact_first_counts (organization_id, phone_number_id, grain, at, previous_at, contacts)
  SELECT organization_id, phone_number_id, grain, at, previous_at, count(*)
  FROM (
    SELECT organization_id, phone_number_id, grain, at,
           coalesce(lag(at) OVER (PARTITION BY contact_id, phone_number_id, grain ORDER BY at), '-infinity') AS previous_at
    FROM contact_active_periods WHERE p_org IS NULL OR organization_id = p_org
  ) p
  GROUP BY 1, 2, 3, 4, 5;

  IF p_events THEN
    INSERT INTO analytics_events_pending (kind, organization_id, contact_id, phone_number_id, message_id, at)
    SELECT CASE WHEN m.direction = 'inbound' THEN 'inbound' ELSE 'response' END, m.organization_id, m.contact_id,
           coalesce(m.phone_number_id, ''), m.id,
           CASE WHEN m.direction = 'inbound' THEN coalesce(m.sent_at, m.created_at) ELSE m.accepted_at END
    FROM messages m
    WHERE (p_org IS NULL OR m.organization_id = p_org) AND m.contact_id IS NOT NULL
      AND (m.direction = 'inbound' OR ((m.source = 'inbox' OR (m.source = 'api' AND m.template_id IS NULL)) AND m.accepted_at IS NOT NULL))
    ORDER BY 6;
  END IF;
END $$;
--> statement-breakpoint
SELECT analytics_backfill(NULL, true);
