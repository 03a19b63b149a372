CREATE TABLE "billing_plans" (
	"code" text NOT NULL,
	"billing_type" text NOT NULL,
	"name" text NOT NULL,
	"message_limit" integer NOT NULL,
	"monthly_fee_cents" bigint DEFAULT 0 NOT NULL,
	"included_messages" integer DEFAULT 0 NOT NULL,
	"message_price_cents" integer NOT NULL,
	"prices_include_vat" boolean NOT NULL,
	"sort" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "billing_plans_code_billing_type_pk" PRIMARY KEY("code","billing_type"),
	CONSTRAINT "billing_plans_amounts_check" CHECK (monthly_fee_cents >= 0 and included_messages >= 0 and message_price_cents >= 0 and message_limit > 0)
);
--> statement-breakpoint
CREATE TABLE "billing_usage_daily" (
	"organization_id" uuid NOT NULL,
	"day" date NOT NULL,
	"phone_number_id" text NOT NULL,
	"category" text NOT NULL,
	"messages" integer DEFAULT 0 NOT NULL,
	"amount_cents" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "billing_usage_daily_organization_id_day_phone_number_id_category_pk" PRIMARY KEY("organization_id","day","phone_number_id","category")
);
--> statement-breakpoint
CREATE TABLE "invoice_counters" (
	"series" text NOT NULL,
	"year" integer NOT NULL,
	"last" integer NOT NULL,
	CONSTRAINT "invoice_counters_series_year_pk" PRIMARY KEY("series","year")
);
--> statement-breakpoint
CREATE TABLE "invoice_disputes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"invoice_id" uuid NOT NULL,
	"reason" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"previous_status" text NOT NULL,
	"raised_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"resolved_by" uuid,
	"resolution" text
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"number" text NOT NULL,
	"series" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"issued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"due_at" timestamp with time zone,
	"paid_at" timestamp with time zone,
	"period_start" date,
	"period_end" date,
	"description" text NOT NULL,
	"plan_type" text,
	"billing_type" text,
	"net_cents" bigint NOT NULL,
	"vat_cents" bigint NOT NULL,
	"total_cents" bigint NOT NULL,
	"prices_include_vat" boolean NOT NULL,
	"seller" jsonb NOT NULL,
	"buyer" jsonb NOT NULL,
	"lines" jsonb NOT NULL,
	"payment_id" uuid,
	"payment_method" text,
	"payment_reference" text,
	"reconciled" boolean DEFAULT false NOT NULL,
	"reconciled_at" timestamp with time zone,
	"reconciled_by" uuid,
	"reminders" integer DEFAULT 0 NOT NULL,
	"last_reminder_at" timestamp with time zone,
	"etims_cu_serial" text,
	"etims_cu_invoice_number" text,
	"etims_qr_url" text,
	"etims_transmitted_at" timestamp with time zone,
	CONSTRAINT "invoices_number_unique" UNIQUE("number"),
	CONSTRAINT "invoices_totals_check" CHECK (net_cents + vat_cents = total_cents)
);
--> statement-breakpoint
CREATE TABLE "mpesa_suspense" (
	"trans_id" text PRIMARY KEY NOT NULL,
	"bill_ref_number" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"msisdn" text,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"method" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"amount_cents" bigint NOT NULL,
	"invoice_id" uuid,
	"phone" text,
	"checkout_request_id" text,
	"merchant_request_id" text,
	"callback_secret_hash" text,
	"reference" text,
	"receipt" text,
	"result_code" text,
	"failure_reason" text,
	"next_check_at" timestamp with time zone,
	"checks" integer DEFAULT 0 NOT NULL,
	"automatic" boolean DEFAULT false NOT NULL,
	"idempotency_key" text,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "payments_amount_check" CHECK (amount_cents > 0)
);
--> statement-breakpoint
CREATE TABLE "wallet_entries" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "wallet_entries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"amount_cents" bigint DEFAULT 0 NOT NULL,
	"held_cents" bigint DEFAULT 0 NOT NULL,
	"balance_after_cents" bigint NOT NULL,
	"held_after_cents" bigint NOT NULL,
	"message_count" integer,
	"campaign_id" uuid,
	"payment_id" uuid,
	"invoice_id" uuid,
	"receipt" text,
	"description" text NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallets" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"balance_cents" bigint DEFAULT 0 NOT NULL,
	"held_cents" bigint DEFAULT 0 NOT NULL,
	"low_balance_threshold_cents" bigint,
	"low_balance_notified_at" timestamp with time zone,
	"auto_topup_threshold_cents" bigint,
	"auto_topup_amount_cents" bigint,
	"auto_topup_phone" text,
	"auto_topup_requested_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wallets_available_check" CHECK (held_cents >= 0 and balance_cents >= held_cents),
	CONSTRAINT "wallets_settings_check" CHECK (coalesce(low_balance_threshold_cents, 0) >= 0 and coalesce(auto_topup_threshold_cents, 0) >= 0)
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "next_plan_type" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "next_billing_type" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "next_plan_from" date;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "price_cents" integer;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "charge_state" text;--> statement-breakpoint
ALTER TABLE "invoice_disputes" ADD CONSTRAINT "invoice_disputes_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_disputes" ADD CONSTRAINT "invoice_disputes_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_disputes" ADD CONSTRAINT "invoice_disputes_raised_by_users_id_fk" FOREIGN KEY ("raised_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "invoice_disputes_open_key" ON "invoice_disputes" USING btree ("invoice_id") WHERE status = 'open';--> statement-breakpoint
CREATE INDEX "invoice_disputes_org_idx" ON "invoice_disputes" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "invoices_org_issued_idx" ON "invoices" USING btree ("organization_id","issued_at");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_subscription_period_key" ON "invoices" USING btree ("organization_id","period_start") WHERE kind = 'subscription';--> statement-breakpoint
CREATE INDEX "invoices_unpaid_due_idx" ON "invoices" USING btree ("due_at") WHERE status in ('pending', 'overdue');--> statement-breakpoint
CREATE INDEX "payments_org_created_idx" ON "payments" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_checkout_request_key" ON "payments" USING btree ("checkout_request_id") WHERE checkout_request_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "payments_method_reference_key" ON "payments" USING btree ("method","reference") WHERE reference is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "payments_receipt_key" ON "payments" USING btree ("receipt") WHERE receipt is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "payments_idempotency_key" ON "payments" USING btree ("organization_id","idempotency_key") WHERE idempotency_key is not null;--> statement-breakpoint
CREATE INDEX "payments_next_check_idx" ON "payments" USING btree ("next_check_at") WHERE status = 'pending' and next_check_at is not null;--> statement-breakpoint
CREATE INDEX "wallet_entries_org_idx" ON "wallet_entries" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "wallet_entries_receipt_key" ON "wallet_entries" USING btree ("receipt") WHERE receipt is not null;--> statement-breakpoint
-- The price list (decision 035): prepaid prices include VAT (the wallet is spent at the price shown);
-- postpaid prices exclude it (VAT 16% is added on the monthly invoice).
INSERT INTO "billing_plans" ("code", "billing_type", "name", "message_limit", "monthly_fee_cents", "included_messages", "message_price_cents", "prices_include_vat", "sort") VALUES
  ('starter', 'prepaid', 'Starter', 1000, 0, 0, 200, true, 1),
  ('growth', 'prepaid', 'Growth', 10000, 0, 0, 200, true, 2),
  ('enterprise', 'prepaid', 'Enterprise', 100000, 0, 0, 200, true, 3),
  ('starter', 'postpaid', 'Starter', 1000, 200000, 1000, 200, false, 1),
  ('growth', 'postpaid', 'Growth', 10000, 900000, 10000, 100, false, 2),
  ('enterprise', 'postpaid', 'Enterprise', 100000, 1500000, 100000, 20, false, 3);
--> statement-breakpoint
-- Every organisation has a wallet, from the start.
INSERT INTO "wallets" ("organization_id") SELECT "id" FROM "organizations" ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- A new organisation gets its wallet in the same transaction (the ledger's functions lock this row).
CREATE OR REPLACE FUNCTION jumbe_open_wallet() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO wallets (organization_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER organizations_open_wallet AFTER INSERT ON organizations FOR EACH ROW EXECUTE FUNCTION jumbe_open_wallet();
