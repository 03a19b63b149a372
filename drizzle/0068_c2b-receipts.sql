CREATE TABLE "payment_c2b_receipts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"shortcode_id" uuid NOT NULL,
	"trans_id" text NOT NULL,
	"amount_kes" integer NOT NULL,
	"msisdn" text DEFAULT '' NOT NULL,
	"payer_name" text DEFAULT '' NOT NULL,
	"bill_ref" text DEFAULT '' NOT NULL,
	"paid_at" timestamp with time zone NOT NULL,
	"request_id" uuid,
	"unmatched_reason" text,
	"matched_by" uuid,
	"matched_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payment_c2b_receipts" ADD CONSTRAINT "payment_c2b_receipts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_c2b_receipts" ADD CONSTRAINT "payment_c2b_receipts_shortcode_id_mpesa_shortcodes_id_fk" FOREIGN KEY ("shortcode_id") REFERENCES "public"."mpesa_shortcodes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_c2b_receipts" ADD CONSTRAINT "payment_c2b_receipts_request_id_payment_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."payment_requests"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_c2b_receipts" ADD CONSTRAINT "payment_c2b_receipts_matched_by_users_id_fk" FOREIGN KEY ("matched_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payment_c2b_receipts_trans_idx" ON "payment_c2b_receipts" USING btree ("shortcode_id","trans_id");--> statement-breakpoint
CREATE INDEX "payment_c2b_receipts_unmatched_idx" ON "payment_c2b_receipts" USING btree ("organization_id","created_at") WHERE request_id is null;