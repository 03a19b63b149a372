-- Decision 180 (issue 78, step 1 of decision 164's plan for messages): the five foreign keys to
-- messages.id become triggers that do what the keys did, so they keep working once messages is
-- partitioned by month. A partitioned table's unique key must hold created_at, so a foreign key to it
-- would have to be (id, created_at), and one would also cascade when jumbe_ensure_month_partition
-- moves a month's rows out of the default partition (a delete there), and refuse a month's detach.
--   * A row naming a message: an AFTER row trigger (as a foreign key's own check, so a message inserted
--     earlier in the same statement is seen) reads the message FOR KEY SHARE, the lock a foreign key
--     takes, and refuses a message that is not there with foreign_key_violation under the old key's
--     name. A message deleted meanwhile makes the check wait for that delete and then refuse.
--   * A deleted message: one statement trigger with the deleted rows deletes automation_runs,
--     hubspot_logged_messages and sms_fallbacks naming them and clears orders' and shopify_events'
--     message_id, set based. A partition's own delete (the default partition's move) and a dropped
--     month (DDL) do not fire it: what a dropped month leaves is swept (partitions.ts, with the rebuild).
ALTER TABLE "automation_runs" DROP CONSTRAINT "automation_runs_message_id_messages_id_fk";
--> statement-breakpoint
ALTER TABLE "shopify_events" DROP CONSTRAINT "shopify_events_message_id_messages_id_fk";
--> statement-breakpoint
ALTER TABLE "hubspot_logged_messages" DROP CONSTRAINT "hubspot_logged_messages_message_id_messages_id_fk";
--> statement-breakpoint
ALTER TABLE "orders" DROP CONSTRAINT "orders_message_id_messages_id_fk";
--> statement-breakpoint
ALTER TABLE "sms_fallbacks" DROP CONSTRAINT "sms_fallbacks_source_message_id_messages_id_fk";
--> statement-breakpoint
CREATE INDEX "shopify_events_message_idx" ON "shopify_events" USING btree ("message_id") WHERE message_id is not null;--> statement-breakpoint
CREATE INDEX "orders_message_idx" ON "orders" USING btree ("message_id") WHERE message_id is not null;--> statement-breakpoint
CREATE FUNCTION jumbe_message_reference_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ref uuid := NEW.message_id;
BEGIN
  PERFORM 1 FROM messages WHERE id = ref FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "%"', TG_TABLE_NAME, TG_ARGV[0]
      USING ERRCODE = 'foreign_key_violation', CONSTRAINT = TG_ARGV[0], TABLE = TG_TABLE_NAME,
            DETAIL = format('Key (message_id)=(%s) is not present in table "messages".', ref);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION jumbe_source_message_reference_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ref uuid := NEW.source_message_id;
BEGIN
  PERFORM 1 FROM messages WHERE id = ref FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "%"', TG_TABLE_NAME, TG_ARGV[0]
      USING ERRCODE = 'foreign_key_violation', CONSTRAINT = TG_ARGV[0], TABLE = TG_TABLE_NAME,
            DETAIL = format('Key (source_message_id)=(%s) is not present in table "messages".', ref);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "automation_runs_message_id_messages_id_fk_insert" AFTER INSERT ON "automation_runs" FOR EACH ROW WHEN (NEW."message_id" IS NOT NULL)
  EXECUTE FUNCTION jumbe_message_reference_check('automation_runs_message_id_messages_id_fk');
--> statement-breakpoint
CREATE TRIGGER "automation_runs_message_id_messages_id_fk_update" AFTER UPDATE OF "message_id" ON "automation_runs" FOR EACH ROW
  WHEN (NEW."message_id" IS NOT NULL AND NEW."message_id" IS DISTINCT FROM OLD."message_id")
  EXECUTE FUNCTION jumbe_message_reference_check('automation_runs_message_id_messages_id_fk');
--> statement-breakpoint
CREATE TRIGGER "hubspot_logged_messages_message_id_messages_id_fk_insert" AFTER INSERT ON "hubspot_logged_messages" FOR EACH ROW WHEN (NEW."message_id" IS NOT NULL)
  EXECUTE FUNCTION jumbe_message_reference_check('hubspot_logged_messages_message_id_messages_id_fk');
--> statement-breakpoint
CREATE TRIGGER "hubspot_logged_messages_message_id_messages_id_fk_update" AFTER UPDATE OF "message_id" ON "hubspot_logged_messages" FOR EACH ROW
  WHEN (NEW."message_id" IS NOT NULL AND NEW."message_id" IS DISTINCT FROM OLD."message_id")
  EXECUTE FUNCTION jumbe_message_reference_check('hubspot_logged_messages_message_id_messages_id_fk');
--> statement-breakpoint
CREATE TRIGGER "orders_message_id_messages_id_fk_insert" AFTER INSERT ON "orders" FOR EACH ROW WHEN (NEW."message_id" IS NOT NULL)
  EXECUTE FUNCTION jumbe_message_reference_check('orders_message_id_messages_id_fk');
--> statement-breakpoint
CREATE TRIGGER "orders_message_id_messages_id_fk_update" AFTER UPDATE OF "message_id" ON "orders" FOR EACH ROW
  WHEN (NEW."message_id" IS NOT NULL AND NEW."message_id" IS DISTINCT FROM OLD."message_id")
  EXECUTE FUNCTION jumbe_message_reference_check('orders_message_id_messages_id_fk');
--> statement-breakpoint
CREATE TRIGGER "shopify_events_message_id_messages_id_fk_insert" AFTER INSERT ON "shopify_events" FOR EACH ROW WHEN (NEW."message_id" IS NOT NULL)
  EXECUTE FUNCTION jumbe_message_reference_check('shopify_events_message_id_messages_id_fk');
--> statement-breakpoint
CREATE TRIGGER "shopify_events_message_id_messages_id_fk_update" AFTER UPDATE OF "message_id" ON "shopify_events" FOR EACH ROW
  WHEN (NEW."message_id" IS NOT NULL AND NEW."message_id" IS DISTINCT FROM OLD."message_id")
  EXECUTE FUNCTION jumbe_message_reference_check('shopify_events_message_id_messages_id_fk');
--> statement-breakpoint
CREATE TRIGGER "sms_fallbacks_source_message_id_messages_id_fk_insert" AFTER INSERT ON "sms_fallbacks" FOR EACH ROW WHEN (NEW."source_message_id" IS NOT NULL)
  EXECUTE FUNCTION jumbe_source_message_reference_check('sms_fallbacks_source_message_id_messages_id_fk');
--> statement-breakpoint
CREATE TRIGGER "sms_fallbacks_source_message_id_messages_id_fk_update" AFTER UPDATE OF "source_message_id" ON "sms_fallbacks" FOR EACH ROW
  WHEN (NEW."source_message_id" IS NOT NULL AND NEW."source_message_id" IS DISTINCT FROM OLD."source_message_id")
  EXECUTE FUNCTION jumbe_source_message_reference_check('sms_fallbacks_source_message_id_messages_id_fk');
--> statement-breakpoint
-- What the keys' ON DELETE did, for every delete through messages (an unsent message withdrawn, a
-- person's erasure, a closed organisation's cascade, a test's cleanup). Each statement planned per call
-- for the rows it has (decision 083's reason).
CREATE FUNCTION messages_references_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'DELETE FROM automation_runs r USING deleted d WHERE r.message_id = d.id';
  EXECUTE 'DELETE FROM hubspot_logged_messages h USING deleted d WHERE h.message_id = d.id';
  EXECUTE 'DELETE FROM sms_fallbacks f USING deleted d WHERE f.source_message_id = d.id';
  EXECUTE 'UPDATE orders o SET message_id = NULL FROM deleted d WHERE o.message_id = d.id';
  EXECUTE 'UPDATE shopify_events e SET message_id = NULL FROM deleted d WHERE e.message_id = d.id';
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER messages_references_delete AFTER DELETE ON messages REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT EXECUTE FUNCTION messages_references_remove();
