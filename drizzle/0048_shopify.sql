CREATE TABLE "shopify_checkouts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"token" text NOT NULL,
	"event_row_id" uuid NOT NULL,
	"payload" jsonb NOT NULL,
	"phone" text,
	"state" text DEFAULT 'waiting' NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shopify_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"shop" text NOT NULL,
	"event_id" text NOT NULL,
	"topic" text NOT NULL,
	"event_type" text,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'received' NOT NULL,
	"reason" text,
	"reference" text,
	"phone" text,
	"message_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "shopify_mappings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"event_type" text NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"template_id" uuid,
	"variables" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"delay_minutes" integer DEFAULT 60 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "shopify_checkouts" ADD CONSTRAINT "shopify_checkouts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shopify_checkouts" ADD CONSTRAINT "shopify_checkouts_event_row_id_shopify_events_id_fk" FOREIGN KEY ("event_row_id") REFERENCES "public"."shopify_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shopify_events" ADD CONSTRAINT "shopify_events_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shopify_events" ADD CONSTRAINT "shopify_events_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shopify_mappings" ADD CONSTRAINT "shopify_mappings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shopify_mappings" ADD CONSTRAINT "shopify_mappings_template_id_message_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."message_templates"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "shopify_checkouts_org_token_idx" ON "shopify_checkouts" USING btree ("organization_id","token");--> statement-breakpoint
CREATE INDEX "shopify_checkouts_due_idx" ON "shopify_checkouts" USING btree ("due_at") WHERE state = 'waiting';--> statement-breakpoint
CREATE UNIQUE INDEX "shopify_events_org_event_idx" ON "shopify_events" USING btree ("organization_id","event_id");--> statement-breakpoint
CREATE INDEX "shopify_events_org_received_idx" ON "shopify_events" USING btree ("organization_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "shopify_mappings_org_event_idx" ON "shopify_mappings" USING btree ("organization_id","event_type");