CREATE TABLE "sms_fallbacks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"source_message_id" uuid NOT NULL,
	"campaign_id" uuid,
	"trigger" text NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"reason" text,
	"sms_message_id" uuid,
	"due_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"whatsapp_late_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "sms_fallback" jsonb;--> statement-breakpoint
ALTER TABLE "sms_fallbacks" ADD CONSTRAINT "sms_fallbacks_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sms_fallbacks" ADD CONSTRAINT "sms_fallbacks_source_message_id_messages_id_fk" FOREIGN KEY ("source_message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sms_fallbacks" ADD CONSTRAINT "sms_fallbacks_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sms_fallbacks_source_idx" ON "sms_fallbacks" USING btree ("source_message_id");--> statement-breakpoint
CREATE INDEX "sms_fallbacks_campaign_idx" ON "sms_fallbacks" USING btree ("campaign_id","state") WHERE campaign_id is not null;--> statement-breakpoint
CREATE INDEX "sms_fallbacks_pending_idx" ON "sms_fallbacks" USING btree ("due_at") WHERE state = 'pending';