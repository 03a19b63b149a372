CREATE TABLE "shopify_order_payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"shop" text NOT NULL,
	"order_id" text NOT NULL,
	"event_row_id" uuid,
	"reference" text,
	"status" text DEFAULT 'asking' NOT NULL,
	"reason" text,
	"payment_request_id" uuid,
	"amount_kes" integer,
	"marked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shopify_settings" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"ask_payment" boolean DEFAULT false NOT NULL,
	"products_imported_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "shopify_shop" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "shopify_product_id" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "shopify_variant_id" text;--> statement-breakpoint
ALTER TABLE "shopify_order_payments" ADD CONSTRAINT "shopify_order_payments_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shopify_order_payments" ADD CONSTRAINT "shopify_order_payments_event_row_id_shopify_events_id_fk" FOREIGN KEY ("event_row_id") REFERENCES "public"."shopify_events"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shopify_order_payments" ADD CONSTRAINT "shopify_order_payments_payment_request_id_payment_requests_id_fk" FOREIGN KEY ("payment_request_id") REFERENCES "public"."payment_requests"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shopify_settings" ADD CONSTRAINT "shopify_settings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "shopify_order_payments_order_idx" ON "shopify_order_payments" USING btree ("organization_id","shop","order_id");--> statement-breakpoint
CREATE INDEX "shopify_order_payments_event_idx" ON "shopify_order_payments" USING btree ("event_row_id");--> statement-breakpoint
CREATE INDEX "shopify_order_payments_request_idx" ON "shopify_order_payments" USING btree ("payment_request_id");--> statement-breakpoint
CREATE INDEX "products_org_shopify_idx" ON "products" USING btree ("organization_id","shopify_shop","shopify_product_id");