CREATE TABLE "sms_connections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"username" text NOT NULL,
	"api_key_sealed" text NOT NULL,
	"api_key_hint" text NOT NULL,
	"sender_id" text DEFAULT '' NOT NULL,
	"callback_token" text NOT NULL,
	"status" text DEFAULT 'untested' NOT NULL,
	"status_detail" text,
	"balance_text" text,
	"tested_at" timestamp with time zone,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sms_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"direction" text NOT NULL,
	"at_message_id" text NOT NULL,
	"parts" integer DEFAULT 1 NOT NULL,
	"price_cents" integer DEFAULT 0 NOT NULL,
	"at_cost" text,
	"report_status" text,
	"failure_reason" text,
	"network_code" text,
	"reported_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "channel" text DEFAULT 'whatsapp' NOT NULL;--> statement-breakpoint
ALTER TABLE "sms_connections" ADD CONSTRAINT "sms_connections_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sms_connections" ADD CONSTRAINT "sms_connections_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sms_messages" ADD CONSTRAINT "sms_messages_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sms_connections_org_idx" ON "sms_connections" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sms_connections_token_idx" ON "sms_connections" USING btree ("callback_token");--> statement-breakpoint
CREATE UNIQUE INDEX "sms_messages_org_at_idx" ON "sms_messages" USING btree ("organization_id","direction","at_message_id");--> statement-breakpoint
CREATE INDEX "sms_messages_message_idx" ON "sms_messages" USING btree ("message_id");