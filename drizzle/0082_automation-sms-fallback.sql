CREATE TABLE "automation_sms_fallbacks" (
	"organization_id" uuid NOT NULL,
	"automation" text NOT NULL,
	"mode" text NOT NULL,
	"text" text,
	"after_minutes" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "automation_sms_fallbacks_organization_id_automation_pk" PRIMARY KEY("organization_id","automation")
);
--> statement-breakpoint
ALTER TABLE "sms_fallbacks" ADD COLUMN "automation" text;--> statement-breakpoint
ALTER TABLE "sms_fallbacks" ADD COLUMN "body" text;--> statement-breakpoint
ALTER TABLE "automation_sms_fallbacks" ADD CONSTRAINT "automation_sms_fallbacks_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;