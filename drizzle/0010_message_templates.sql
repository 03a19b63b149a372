DROP INDEX "message_templates_org_idx";--> statement-breakpoint
ALTER TABLE "message_templates" ALTER COLUMN "status" SET DEFAULT 'draft';--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "account_id" uuid;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "waba_id" text;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "meta_template_id" text;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "previous_category" text;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "components" jsonb;--> statement-breakpoint
-- Rows from before templates were real: the spec's words become Meta's codes, the body becomes
-- Meta's components, and since none of them ever reached Meta they are drafts.
UPDATE "message_templates" SET
  "category" = CASE "category" WHEN 'OTP' THEN 'AUTHENTICATION' WHEN 'Transactional' THEN 'UTILITY' WHEN 'Marketing' THEN 'MARKETING' ELSE upper("category") END,
  "language" = CASE "language" WHEN 'English' THEN 'en' WHEN 'Swahili' THEN 'sw' WHEN 'French' THEN 'fr' ELSE "language" END,
  "name" = lower(regexp_replace("name", '[^A-Za-z0-9_]+', '_', 'g')),
  "status" = 'draft',
  "components" = CASE WHEN "category" = 'OTP'
    THEN '[{"type":"BODY","add_security_recommendation":true},{"type":"BUTTONS","buttons":[{"type":"OTP","otp_type":"COPY_CODE","text":"Copy code"}]}]'::jsonb
    ELSE jsonb_build_array(jsonb_build_object('type', 'BODY', 'text', "body")) END;--> statement-breakpoint
ALTER TABLE "message_templates" ALTER COLUMN "components" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "rejection_reason" text;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "quality_score" text;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "meta_event" text;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "meta_event_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "last_error" text;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "source" text DEFAULT 'jumbe' NOT NULL;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "created_by" uuid;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "submitted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "deleting_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "synced_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "message_templates" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "message_templates" ADD CONSTRAINT "message_templates_account_id_whatsapp_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."whatsapp_accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_templates" ADD CONSTRAINT "message_templates_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "message_templates_name_idx" ON "message_templates" USING btree ("organization_id",coalesce("waba_id", ''),"name","language");--> statement-breakpoint
CREATE UNIQUE INDEX "message_templates_meta_id_idx" ON "message_templates" USING btree ("organization_id","meta_template_id") WHERE meta_template_id is not null;--> statement-breakpoint
CREATE INDEX "message_templates_list_idx" ON "message_templates" USING btree ("organization_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "message_templates_waba_idx" ON "message_templates" USING btree ("waba_id");--> statement-breakpoint
ALTER TABLE "message_templates" DROP COLUMN "body";