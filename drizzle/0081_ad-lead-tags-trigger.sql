-- Decision 158: a tag the organisation chose as "converted" (ad_conversion_settings.lead_tags), newly
-- on a contact whose conversation came from an ad with a click id entered within 7 days, queues one
-- LeadSubmitted per ad entry, in the statement's transaction, whatever path wrote the tags (inbox,
-- rules, flows, imports, bulk, API, merges, HubSpot). One INSERT per statement from its transition
-- tables; the key `lead:ad:<ad referral id>` (shared with "Mark as converted" and a flow's end) makes
-- concurrent or repeated adds one event; an older manual lead of the same entry counts as sent.
-- PostgreSQL refuses transition tables on a column list (UPDATE OF tags): the settings join is the
-- cheap first filter.
CREATE FUNCTION "ad_lead_from_tags"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  queued integer;
BEGIN
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
    ON CONFLICT ("organization_id", "idempotency_key") DO NOTHING;
  GET DIAGNOSTICS queued = ROW_COUNT;
  IF queued > 0 THEN
    INSERT INTO "jobs" ("queue", "payload", "run_at", "priority", "unique_key")
      VALUES ('ads.conversions.send', '{}'::jsonb, now(), 0, 'ads.conversions.send')
      ON CONFLICT ("unique_key") WHERE "finished_at" IS NULL AND "failed_at" IS NULL DO NOTHING;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "contacts_ad_lead_from_tags" AFTER UPDATE ON "contacts" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "ad_lead_from_tags"();
