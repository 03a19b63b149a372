CREATE TABLE "hubspot_contact_links" (
	"organization_id" uuid NOT NULL,
	"hub_id" text NOT NULL,
	"contact_id" uuid NOT NULL,
	"hubspot_id" text NOT NULL,
	"jumbe_synced_at" timestamp with time zone NOT NULL,
	"hubspot_modified_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "hubspot_contact_links_organization_id_hub_id_contact_id_pk" PRIMARY KEY("organization_id","hub_id","contact_id")
);
--> statement-breakpoint
CREATE TABLE "hubspot_logged_messages" (
	"message_id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"hub_id" text NOT NULL,
	"communication_id" text NOT NULL,
	"logged_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "hubspot_segment_sources" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"segment_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"list_id" text,
	"search" jsonb,
	"name" text NOT NULL,
	"tag" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "hubspot_contact_links" ADD CONSTRAINT "hubspot_contact_links_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hubspot_contact_links" ADD CONSTRAINT "hubspot_contact_links_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hubspot_logged_messages" ADD CONSTRAINT "hubspot_logged_messages_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hubspot_logged_messages" ADD CONSTRAINT "hubspot_logged_messages_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hubspot_segment_sources" ADD CONSTRAINT "hubspot_segment_sources_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hubspot_segment_sources" ADD CONSTRAINT "hubspot_segment_sources_segment_id_segments_id_fk" FOREIGN KEY ("segment_id") REFERENCES "public"."segments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "hubspot_contact_links_hubspot_idx" ON "hubspot_contact_links" USING btree ("organization_id","hub_id","hubspot_id");--> statement-breakpoint
CREATE INDEX "hubspot_logged_messages_org_idx" ON "hubspot_logged_messages" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "hubspot_segment_sources_tag_idx" ON "hubspot_segment_sources" USING btree ("organization_id","tag");