CREATE TABLE "sms_early_reports" (
	"organization_id" uuid NOT NULL,
	"at_message_id" text NOT NULL,
	"status" text NOT NULL,
	"failure_reason" text,
	"network_code" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sms_early_reports_organization_id_at_message_id_status_pk" PRIMARY KEY("organization_id","at_message_id","status")
);
--> statement-breakpoint
ALTER TABLE "sms_early_reports" ADD CONSTRAINT "sms_early_reports_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sms_early_reports_received_idx" ON "sms_early_reports" USING btree ("received_at");