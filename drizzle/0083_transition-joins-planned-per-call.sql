-- A statement trigger's join of its transition tables, planned on each call (EXECUTE) for the rows it
-- has, rather than once per session. PL/pgSQL keeps a query's plan for the session, and a query without
-- parameters keeps its first, generic plan: planned for the one-row update a session happened to fire
-- first, the join of old_rows to new_rows was a nested loop that rescanned new_rows for every old row
-- and formed each row's whole record on each pass. A status batch of 3,738 messages then spent 23 to 70
-- seconds of CPU in messages_analytics_update (the SMS fallback bench, bench/results.md), holding the
-- messages' row locks the next batches waited on. Planning costs well under a millisecond a statement.
-- tests/integration/transition-table-plans.test.ts checks each transition table is read once.
CREATE OR REPLACE FUNCTION messages_analytics_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  newer messages[];
  older messages[];
  accepted messages[];
BEGIN
  -- Only rows whose figures can have moved (the dispatcher's claims and leases change none of these
  -- columns), and the business messages Meta has just accepted: their contact was active, and they
  -- may answer a waiting customer.
  EXECUTE $q$
    SELECT array_agg(n) FILTER (WHERE c.changed), array_agg(o) FILTER (WHERE c.changed),
           array_agg(n) FILTER (WHERE n.direction = 'outbound' AND n.accepted_at IS NOT NULL AND o.accepted_at IS NULL)
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      CROSS JOIN LATERAL (SELECT
        (o.direction, o.status, o.phone_number_id, o.template_id, o.pricing_category, o.sent_at, o.created_at, o.accepted_at,
         o.delivered_at, o.read_at, o.failed_at, o.replied_at, o.charge_state, o.price_cents)
        IS DISTINCT FROM
        (n.direction, n.status, n.phone_number_id, n.template_id, n.pricing_category, n.sent_at, n.created_at, n.accepted_at,
         n.delivered_at, n.read_at, n.failed_at, n.replied_at, n.charge_state, n.price_cents) AS changed) c
  $q$ INTO newer, older, accepted;
  IF newer IS NOT NULL THEN
    PERFORM analytics_add_deltas(newer, older);
  END IF;
  IF accepted IS NOT NULL THEN
    PERFORM analytics_add_events(accepted);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "ad_lead_from_tags"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  queued integer;
BEGIN
  EXECUTE $q$
    INSERT INTO "ad_conversion_events" ("organization_id", "conversation_id", "contact_id", "ad_referral_id", "ctwa_clid", "waba_id",
                                        "event_name", "source", "source_id", "idempotency_key", "event_time")
      SELECT DISTINCT ON (ad."id") v."organization_id", v."id", v."contact_id", ad."id", ad."ctwa_clid", a."waba_id",
             'LeadSubmitted', 'tag', added.tag, 'lead:ad:' || ad."id", now()
      FROM new_rows n
      JOIN old_rows o ON o."id" = n."id"
      JOIN "ad_conversion_settings" s ON s."organization_id" = n."organization_id" AND s."enabled" AND s."lead_tags" && n."tags"
      JOIN LATERAL (SELECT min(x) AS tag FROM unnest(n."tags") x WHERE x = ANY (s."lead_tags") AND NOT (x = ANY (o."tags"))) added
        ON added.tag IS NOT NULL
      JOIN "conversations" v ON v."organization_id" = n."organization_id" AND v."contact_id" = n."id" AND v."ad_referral_id" IS NOT NULL
      JOIN "ad_referrals" ad ON ad."id" = v."ad_referral_id" AND ad."organization_id" = v."organization_id" AND ad."ctwa_clid" IS NOT NULL
      JOIN LATERAL (SELECT w."waba_id" FROM "whatsapp_phone_numbers" p JOIN "whatsapp_accounts" w ON w."id" = p."account_id"
                    WHERE p."organization_id" = v."organization_id" AND p."phone_number_id" = v."phone_number_id"
                    ORDER BY p."disconnected_at" NULLS FIRST LIMIT 1) a ON true
      WHERE v."ad_entry_at" <= now() + interval '1 minute' AND v."ad_entry_at" > now() - interval '7 days'
        AND NOT EXISTS (SELECT 1 FROM "ad_conversion_events" e
                        WHERE e."organization_id" = v."organization_id" AND e."ad_referral_id" = ad."id" AND e."event_name" = 'LeadSubmitted')
      ORDER BY ad."id"
      ON CONFLICT ("organization_id", "idempotency_key") DO NOTHING
  $q$;
  GET DIAGNOSTICS queued = ROW_COUNT;
  IF queued > 0 THEN
    INSERT INTO "jobs" ("queue", "payload", "run_at", "priority", "unique_key")
      VALUES ('ads.conversions.send', '{}'::jsonb, now(), 0, 'ads.conversions.send')
      ON CONFLICT ("unique_key") WHERE "finished_at" IS NULL AND "failed_at" IS NULL DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
