CREATE TABLE "shop_catalog_batches" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"catalog_id" text NOT NULL,
	"handle" text NOT NULL,
	"products" jsonb NOT NULL,
	"status" text DEFAULT 'in_progress' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "image_key" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "image_token" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "image_type" text;--> statement-breakpoint
ALTER TABLE "shop_catalog_batches" ADD CONSTRAINT "shop_catalog_batches_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "shop_catalog_batches_org_idx" ON "shop_catalog_batches" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "products_image_token_idx" ON "products" USING btree ("image_token");