ALTER TABLE "google_sheets_exports" ADD COLUMN "import_spreadsheet_id" text;--> statement-breakpoint
ALTER TABLE "google_sheets_exports" ADD COLUMN "import_spreadsheet_title" text;--> statement-breakpoint
ALTER TABLE "google_sheets_exports" ADD COLUMN "import_spreadsheet_url" text;