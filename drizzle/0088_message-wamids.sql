-- Decision 174 (amends 164): each message's wamid, once per tenant, in a narrow table of its own,
-- message_wamids, so that the duplicate delivery of an inbound message and an outbound message's
-- status are recognised by a unique key that does not hold created_at: once messages is partitioned
-- by month (its unique indexes then must hold created_at), a message delivered again after midnight
-- on the 1st is still the same message.
CREATE TABLE "message_wamids" (
	"organization_id" uuid NOT NULL,
	"wamid" text NOT NULL,
	"message_id" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "message_wamids_organization_id_wamid_pk" PRIMARY KEY("organization_id","wamid")
);
--> statement-breakpoint
ALTER TABLE "message_wamids" ADD CONSTRAINT "message_wamids_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "message_wamids_message_idx" ON "message_wamids" USING btree ("message_id");
--> statement-breakpoint
-- Backfill: messages_org_wamid_idx holds every wamid once per tenant, so the keys copy without a conflict.
INSERT INTO "message_wamids" ("organization_id", "wamid", "message_id", "created_at")
  SELECT "organization_id", "wamid", "id", "created_at" FROM "messages" WHERE "wamid" IS NOT NULL;
--> statement-breakpoint
-- Every write that gives a message its wamid (an insert, the dispatcher's settle, a lost accept
-- adopted, a seed) writes its key in the same statement; a message that loses its wamid (erasure)
-- loses its key. A wamid another message of the tenant holds is refused as the unique index on
-- messages refused it. The inbound insert writes its keys itself first (on conflict do nothing) and
-- inserts only the messages whose key went in: this trigger then finds the key its own.
CREATE FUNCTION message_wamids_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.wamid IS NOT NULL THEN
    DELETE FROM message_wamids WHERE organization_id = OLD.organization_id AND wamid = OLD.wamid AND message_id = OLD.id;
  END IF;
  IF NEW.wamid IS NOT NULL THEN
    INSERT INTO message_wamids (organization_id, wamid, message_id, created_at)
      VALUES (NEW.organization_id, NEW.wamid, NEW.id, NEW.created_at)
      ON CONFLICT (organization_id, wamid) DO NOTHING;
    IF NOT FOUND AND NOT EXISTS (SELECT 1 FROM message_wamids
                                 WHERE organization_id = NEW.organization_id AND wamid = NEW.wamid AND message_id = NEW.id) THEN
      RAISE unique_violation USING MESSAGE = format('wamid %s already belongs to another message', NEW.wamid),
                                   CONSTRAINT = 'message_wamids_organization_id_wamid_pk';
    END IF;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER messages_wamid_insert AFTER INSERT ON messages FOR EACH ROW WHEN (NEW.wamid IS NOT NULL)
  EXECUTE FUNCTION message_wamids_keep();
--> statement-breakpoint
CREATE TRIGGER messages_wamid_update AFTER UPDATE OF wamid, organization_id ON messages FOR EACH ROW
  WHEN (NEW.wamid IS DISTINCT FROM OLD.wamid OR NEW.organization_id IS DISTINCT FROM OLD.organization_id)
  EXECUTE FUNCTION message_wamids_keep();
--> statement-breakpoint
-- A deleted message's key goes with it, set based, in the deleting statement (a closed
-- organisation's cascade, a test's cleanup). A foreign key with on delete cascade was refused (decision 174).
CREATE FUNCTION message_wamids_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM message_wamids k USING deleted d WHERE k.message_id = d.id AND d.wamid IS NOT NULL
    AND k.organization_id = d.organization_id AND k.wamid = d.wamid;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER messages_wamid_delete AFTER DELETE ON messages REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT EXECUTE FUNCTION message_wamids_remove();
