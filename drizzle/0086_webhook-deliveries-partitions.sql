-- Decision 169 (amends 164): webhook_deliveries (webhooks out) becomes partitioned by month of
-- created_at like the log tables of migration 0085. Its two unique indexes, (organization_id,
-- message_id, event_type) and (hook_id, message_id, event_type), made an event's enqueue idempotent;
-- a partitioned table's unique index must hold the partition key, and with created_at in them a
-- retried enqueue in a later month would write the event twice. The keys move to a narrow table of
-- their own, webhook_delivery_keys, unpartitioned and unique across every month: the enqueue inserts
-- the key (on conflict do nothing) and the delivery only for a key it inserted, in one statement.
--
-- The table is built anew under its own name (the old one renamed aside), with its default and
-- monthly partitions made before the copy, so each row is written once, straight into its month.
ALTER TABLE "webhook_deliveries" RENAME TO "webhook_deliveries_unpartitioned";
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"event_type" text NOT NULL,
	"message_id" uuid,
	"hook_id" uuid,
	"payload" json NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"step" integer DEFAULT 0 NOT NULL,
	"seq" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"last_attempt_at" timestamp with time zone,
	"response_status" integer,
	"response_body" text,
	"error" text,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_deliveries_id_created_at_pk" PRIMARY KEY("id","created_at")
) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
CREATE TABLE "webhook_deliveries_default" PARTITION OF "webhook_deliveries" DEFAULT;
--> statement-breakpoint
SELECT jumbe_ensure_month_partition('webhook_deliveries', 'created_at', m::date)
FROM generate_series(date_trunc('month', least(coalesce((SELECT min("created_at") FROM "webhook_deliveries_unpartitioned"), now()), now()) AT TIME ZONE 'UTC'),
                     date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months', interval '1 month') AS m;
--> statement-breakpoint
INSERT INTO "webhook_deliveries"
  SELECT "id", "organization_id", "event_type", "message_id", "hook_id", "payload", "status", "attempts", "step", "seq", "next_attempt_at",
         "last_attempt_at", "response_status", "response_body", "error", "delivered_at", "created_at"
  FROM "webhook_deliveries_unpartitioned";
--> statement-breakpoint
CREATE TABLE "webhook_delivery_keys" (
	"delivery_id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"hook_id" uuid,
	"message_id" uuid NOT NULL,
	"event_type" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
-- The old unique indexes held every message event (message_id not null) once: their keys copy without a conflict.
INSERT INTO "webhook_delivery_keys" ("delivery_id", "organization_id", "hook_id", "message_id", "event_type", "created_at")
  SELECT "id", "organization_id", "hook_id", "message_id", "event_type", "created_at"
  FROM "webhook_deliveries_unpartitioned" WHERE "message_id" IS NOT NULL;
--> statement-breakpoint
DROP TABLE "webhook_deliveries_unpartitioned";
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_hook_id_rest_hooks_id_fk" FOREIGN KEY ("hook_id") REFERENCES "public"."rest_hooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_org_created_idx" ON "webhook_deliveries" USING btree ("organization_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "webhook_deliveries_created_idx" ON "webhook_deliveries" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_hook_idx" ON "webhook_deliveries" USING btree ("hook_id") WHERE hook_id is not null;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE status = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_delivery_keys_org_message_event_idx" ON "webhook_delivery_keys" USING btree ("organization_id","message_id","event_type") WHERE hook_id is null;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_delivery_keys_hook_message_event_idx" ON "webhook_delivery_keys" USING btree ("hook_id","message_id","event_type") WHERE hook_id is not null;--> statement-breakpoint
CREATE INDEX "webhook_delivery_keys_created_idx" ON "webhook_delivery_keys" USING btree ("created_at");--> statement-breakpoint
-- A key goes with its delivery: every delete of deliveries through the table (each organisation's
-- retention, a removed hook's or organisation's cascade) takes their keys in the same statement, set
-- based. A partition's creation moving rows out of the default partition deletes from the partition
-- itself, which this trigger does not see (the rows and their keys stay); a dropped month is DDL, and
-- its keys go by created_at range (partitions.ts).
CREATE FUNCTION webhook_delivery_keys_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM webhook_delivery_keys k USING deleted d WHERE k.delivery_id = d.id AND d.message_id IS NOT NULL;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER webhook_deliveries_keys_delete AFTER DELETE ON webhook_deliveries REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_keys_remove();
