CREATE TABLE "organization_message_days" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"last_day" date NOT NULL
);
--> statement-breakpoint
CREATE TABLE "platform_message_daily" (
	"day" date PRIMARY KEY NOT NULL,
	"sent" bigint DEFAULT 0 NOT NULL,
	"received" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "admin_audit_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "admin_audit_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
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
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "graph_call_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "graph_call_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" uuid,
	"account_id" uuid,
	"waba_id" text,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"status" integer,
	"duration_ms" integer NOT NULL,
	"error" text,
	"origin" text DEFAULT 'engine' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "instance_heartbeats" (
	"instance_id" text PRIMARY KEY NOT NULL,
	"hostname" text NOT NULL,
	"pid" integer NOT NULL,
	"version" text,
	"started_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resources" jsonb
);
--> statement-breakpoint
CREATE TABLE "metric_samples" (
	"name" text NOT NULL,
	"instance_id" text DEFAULT '' NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"value" double precision NOT NULL,
	CONSTRAINT "metric_samples_name_instance_id_at_pk" PRIMARY KEY("name","instance_id","at")
);
--> statement-breakpoint
CREATE TABLE "system_alerts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"rule" text NOT NULL,
	"key" text DEFAULT '' NOT NULL,
	"level" text NOT NULL,
	"title" text NOT NULL,
	"details" text,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"resolved_by" uuid,
	"resolution" text
);
--> statement-breakpoint
CREATE TABLE "template_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "template_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"template_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"source" text NOT NULL,
	"event" text NOT NULL,
	"reason" text,
	"actor_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "suspension_reason" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "template_review" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "confirmed_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "admin_bell_seen_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "whatsapp_accounts" ADD COLUMN "reconnect_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "whatsapp_accounts" ADD COLUMN "reconnect_reason" text;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "platform_reviewed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "platform_reviewed_by" uuid;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "platform_rejection" text;--> statement-breakpoint
ALTER TABLE "invoice_disputes" ADD COLUMN "outcome" text;--> statement-breakpoint
ALTER TABLE "invoice_disputes" ADD COLUMN "credit_note_id" uuid;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "reconciliation_note" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "credits_invoice_id" uuid;--> statement-breakpoint
ALTER TABLE "organization_message_days" ADD CONSTRAINT "organization_message_days_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "admin_audit_log_created_idx" ON "admin_audit_log" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "admin_audit_log_org_idx" ON "admin_audit_log" USING btree ("organization_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "graph_call_log_account_idx" ON "graph_call_log" USING btree ("account_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "graph_call_log_created_idx" ON "graph_call_log" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "metric_samples_at_idx" ON "metric_samples" USING btree ("at");--> statement-breakpoint
CREATE UNIQUE INDEX "system_alerts_open_key" ON "system_alerts" USING btree ("rule","key") WHERE resolved_at is null;--> statement-breakpoint
CREATE INDEX "system_alerts_opened_idx" ON "system_alerts" USING btree ("opened_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "template_events_template_idx" ON "template_events" USING btree ("template_id","created_at");--> statement-breakpoint
CREATE INDEX "organizations_search_trgm_idx" ON "organizations" USING gin (("name" || ' ' || "business_id") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "organizations_created_idx" ON "organizations" USING btree ("created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "users_search_trgm_idx" ON "users" USING gin (("first_name" || ' ' || "last_name" || ' ' || "email" || ' ' || coalesce("phone_number", '')) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "whatsapp_accounts_waba_trgm_idx" ON "whatsapp_accounts" USING gin ("waba_id" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "whatsapp_phone_numbers_search_trgm_idx" ON "whatsapp_phone_numbers" USING gin (("display_phone_number" || ' ' || "phone_digits" || ' ' || "phone_number_id") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "webhook_events_waba_idx" ON "webhook_events" USING btree ((substring(body from '"entry"\s*:\s*\[\s*\{\s*"id"\s*:\s*"([0-9]{1,32})"')),"received_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "jobs_failed_idx" ON "jobs" USING btree ("failed_at" DESC NULLS LAST) WHERE failed_at is not null;--> statement-breakpoint
CREATE INDEX "message_templates_name_trgm_idx" ON "message_templates" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "message_templates_submitted_idx" ON "message_templates" USING btree (coalesce("submitted_at", "created_at") desc nulls last,"id" DESC NULLS LAST) WHERE deleting_at is null;--> statement-breakpoint
CREATE INDEX "invoice_disputes_created_idx" ON "invoice_disputes" USING btree ("created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "invoices_issued_idx" ON "invoices" USING btree ("issued_at","id");--> statement-breakpoint
CREATE INDEX "invoices_status_issued_idx" ON "invoices" USING btree ("status","issued_at","id");--> statement-breakpoint
CREATE INDEX "invoices_total_idx" ON "invoices" USING btree ("total_cents","id");--> statement-breakpoint
CREATE INDEX "invoices_unreconciled_bank_idx" ON "invoices" USING btree ("issued_at") WHERE status in ('pending', 'overdue') and reconciled = false and (kind = 'bank_transfer' or payment_method = 'bank');--> statement-breakpoint
CREATE INDEX "invoices_number_trgm_idx" ON "invoices" USING gin ("number" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "payments_completed_idx" ON "payments" USING btree ("completed_at") WHERE status = 'completed';--> statement-breakpoint
-- The admin console's platform rollups start from what the analytics rollup already holds (the fold keeps them from now on).
INSERT INTO platform_message_daily (day, sent, received)
  SELECT day, sum(sent), sum(received) FROM message_stats_daily GROUP BY day;
--> statement-breakpoint
INSERT INTO organization_message_days (organization_id, last_day)
  SELECT s.organization_id, max(s.day) FROM message_stats_daily s
  WHERE (s.sent > 0 OR s.received > 0) AND EXISTS (SELECT 1 FROM organizations o WHERE o.id = s.organization_id)
  GROUP BY s.organization_id;
--> statement-breakpoint
-- The admin audit log is append-only: nobody edits or deletes a record, whichever code or person asks.
CREATE FUNCTION admin_audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'admin_audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;--> statement-breakpoint
CREATE TRIGGER admin_audit_log_append_only BEFORE UPDATE OR DELETE ON admin_audit_log
  FOR EACH ROW EXECUTE FUNCTION admin_audit_log_refuse_change();
