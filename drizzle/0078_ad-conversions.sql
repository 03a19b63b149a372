CREATE TABLE "ad_conversion_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"ad_referral_id" uuid NOT NULL,
	"ctwa_clid" text NOT NULL,
	"waba_id" text NOT NULL,
	"event_name" text NOT NULL,
	"value_cents" integer,
	"currency" text,
	"source" text NOT NULL,
	"source_id" text,
	"idempotency_key" text NOT NULL,
	"event_time" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"reason" text,
	"meta_answer" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_until" timestamp with time zone,
	"sent_at" timestamp with time zone,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ad_conversion_settings" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"changed_by" uuid,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ad_datasets" (
	"organization_id" uuid NOT NULL,
	"waba_id" text NOT NULL,
	"dataset_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ad_datasets_organization_id_waba_id_pk" PRIMARY KEY("organization_id","waba_id")
);
--> statement-breakpoint
ALTER TABLE "ad_conversion_events" ADD CONSTRAINT "ad_conversion_events_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_conversion_events" ADD CONSTRAINT "ad_conversion_events_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_conversion_events" ADD CONSTRAINT "ad_conversion_events_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_conversion_settings" ADD CONSTRAINT "ad_conversion_settings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_conversion_settings" ADD CONSTRAINT "ad_conversion_settings_changed_by_users_id_fk" FOREIGN KEY ("changed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_datasets" ADD CONSTRAINT "ad_datasets_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ad_conversion_events_key_idx" ON "ad_conversion_events" USING btree ("organization_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "ad_conversion_events_conversation_idx" ON "ad_conversion_events" USING btree ("conversation_id","created_at");--> statement-breakpoint
CREATE INDEX "ad_conversion_events_due_idx" ON "ad_conversion_events" USING btree ("next_attempt_at") WHERE status in ('queued', 'sending');