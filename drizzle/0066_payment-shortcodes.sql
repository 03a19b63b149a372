CREATE TABLE "mpesa_shortcodes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"label" text NOT NULL,
	"kind" text NOT NULL,
	"business_short_code" text NOT NULL,
	"till_number" text DEFAULT '' NOT NULL,
	"environment" text NOT NULL,
	"consumer_key_sealed" text NOT NULL,
	"consumer_key_hint" text NOT NULL,
	"consumer_secret_sealed" text NOT NULL,
	"passkey_sealed" text NOT NULL,
	"callback_token" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'untested' NOT NULL,
	"status_detail" text,
	"tested_at" timestamp with time zone,
	"c2b_registered_at" timestamp with time zone,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mpesa_shortcodes" ADD CONSTRAINT "mpesa_shortcodes_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mpesa_shortcodes" ADD CONSTRAINT "mpesa_shortcodes_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mpesa_shortcodes_org_idx" ON "mpesa_shortcodes" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "mpesa_shortcodes_callback_token_idx" ON "mpesa_shortcodes" USING btree ("callback_token");--> statement-breakpoint
CREATE UNIQUE INDEX "mpesa_shortcodes_org_code_idx" ON "mpesa_shortcodes" USING btree ("organization_id","environment","business_short_code","till_number");--> statement-breakpoint
CREATE UNIQUE INDEX "mpesa_shortcodes_org_default_idx" ON "mpesa_shortcodes" USING btree ("organization_id") WHERE is_default;