ALTER TABLE "shopify_settings" ADD COLUMN "import_state" text;--> statement-breakpoint
ALTER TABLE "shopify_settings" ADD COLUMN "import_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "shopify_settings" ADD COLUMN "import_finished_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "shopify_settings" ADD COLUMN "import_result" jsonb;