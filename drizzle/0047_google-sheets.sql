CREATE TABLE "google_sheets_export_batches" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"spreadsheet_id" text NOT NULL,
	"stream" text NOT NULL,
	"header" boolean DEFAULT false NOT NULL,
	"rows" integer NOT NULL,
	"first_key" text NOT NULL,
	"last_key" text NOT NULL,
	"updated_range" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "google_sheets_exports" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"spreadsheet_id" text,
	"spreadsheet_title" text,
	"spreadsheet_url" text,
	"export_contacts" boolean DEFAULT true NOT NULL,
	"export_messages" boolean DEFAULT true NOT NULL,
	"schedule" text DEFAULT 'off' NOT NULL,
	"next_run_at" timestamp with time zone,
	"contacts_after_at" timestamp (6) with time zone,
	"contacts_after_id" uuid,
	"contacts_header" boolean DEFAULT false NOT NULL,
	"messages_after_at" timestamp (6) with time zone,
	"messages_after_id" uuid,
	"messages_header" boolean DEFAULT false NOT NULL,
	"pending" jsonb,
	"rows_exported" bigint DEFAULT 0 NOT NULL,
	"last_export_at" timestamp with time zone,
	"last_export_rows" integer,
	"export_state" text DEFAULT 'idle' NOT NULL,
	"last_error" text,
	"last_error_at" timestamp with time zone,
	"import_range" text,
	"last_import_id" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "google_sheets_export_batches" ADD CONSTRAINT "google_sheets_export_batches_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "google_sheets_exports" ADD CONSTRAINT "google_sheets_exports_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "google_sheets_export_batches_org_idx" ON "google_sheets_export_batches" USING btree ("organization_id","created_at");