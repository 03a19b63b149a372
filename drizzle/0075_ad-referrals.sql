CREATE TABLE "ad_referrals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"conversation_id" uuid,
	"message_id" uuid NOT NULL,
	"phone_number_id" text NOT NULL,
	"source_id" text NOT NULL,
	"source_type" text NOT NULL,
	"source_url" text,
	"headline" text,
	"body" text,
	"media_type" text,
	"image_url" text,
	"video_url" text,
	"thumbnail_url" text,
	"ctwa_clid" text,
	"welcome_message" text,
	"clicked_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "first_ad_referral_id" uuid;--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "last_ad_referral_id" uuid;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "ad_referral_id" uuid;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "ad_entry_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "free_entry_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ad_referrals" ADD CONSTRAINT "ad_referrals_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_referrals" ADD CONSTRAINT "ad_referrals_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ad_referrals_message_idx" ON "ad_referrals" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "ad_referrals_org_source_idx" ON "ad_referrals" USING btree ("organization_id","source_id","clicked_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "ad_referrals_contact_idx" ON "ad_referrals" USING btree ("contact_id");