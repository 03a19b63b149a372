CREATE TABLE "partner_attributions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "partner_attributions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"partner_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"source" text NOT NULL,
	"reason" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	"created_by" uuid
);
--> statement-breakpoint
CREATE TABLE "partner_payouts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"settlement_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"method" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"status" text NOT NULL,
	"originator_conversation_id" text NOT NULL,
	"conversation_id" text,
	"phone" text,
	"result_code" integer,
	"result_desc" text,
	"receipt" text,
	"receiver_name" text,
	"requested_by" uuid,
	"approved_by" uuid,
	"next_check_at" timestamp with time zone,
	"checks" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "partner_settlements" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"partner_id" uuid NOT NULL,
	"period" date NOT NULL,
	"transactions" integer NOT NULL,
	"revenue_cents" bigint NOT NULL,
	"partner_cents" bigint NOT NULL,
	"withholding_bps" integer NOT NULL,
	"withholding_cents" bigint NOT NULL,
	"net_cents" bigint NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"payout_method" text NOT NULL,
	"payout_reference" text,
	"failure_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"paid_at" timestamp with time zone,
	CONSTRAINT "partner_settlements_net_check" CHECK (partner_cents - withholding_cents = net_cents)
);
--> statement-breakpoint
CREATE TABLE "partner_share_changes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "partner_share_changes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"partner_id" uuid NOT NULL,
	"share_bps" integer NOT NULL,
	"reason" text NOT NULL,
	"effective_from" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "partner_transactions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "partner_transactions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"partner_id" uuid NOT NULL,
	"client_organization_id" uuid NOT NULL,
	"invoice_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"share_bps" integer NOT NULL,
	"partner_cents" bigint NOT NULL,
	"platform_cents" bigint NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"settlement_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "partner_transactions_split_check" CHECK (partner_cents + platform_cents = amount_cents)
);
--> statement-breakpoint
CREATE TABLE "partners" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"category" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"share_bps" integer NOT NULL,
	"payout_method" text NOT NULL,
	"mpesa_phone" text,
	"bank_details" jsonb,
	"kra_pin" text NOT NULL,
	"resident" boolean DEFAULT true NOT NULL,
	"applied_by" uuid,
	"approved_at" timestamp with time zone,
	"approved_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "partners_share_check" CHECK (share_bps between 0 and 5000)
);
--> statement-breakpoint
CREATE UNIQUE INDEX "partner_attributions_current_key" ON "partner_attributions" USING btree ("organization_id") WHERE ended_at is null;--> statement-breakpoint
CREATE INDEX "partner_attributions_partner_idx" ON "partner_attributions" USING btree ("partner_id","started_at");--> statement-breakpoint
CREATE INDEX "partner_attributions_org_idx" ON "partner_attributions" USING btree ("organization_id","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "partner_payouts_attempt_key" ON "partner_payouts" USING btree ("settlement_id","attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "partner_payouts_originator_key" ON "partner_payouts" USING btree ("originator_conversation_id");--> statement-breakpoint
CREATE UNIQUE INDEX "partner_payouts_open_key" ON "partner_payouts" USING btree ("settlement_id") WHERE status in ('awaiting_approval', 'requested', 'accepted', 'paid');--> statement-breakpoint
CREATE INDEX "partner_payouts_check_idx" ON "partner_payouts" USING btree ("next_check_at") WHERE status in ('requested', 'accepted') and next_check_at is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "partner_settlements_period_key" ON "partner_settlements" USING btree ("partner_id","period");--> statement-breakpoint
CREATE INDEX "partner_settlements_period_idx" ON "partner_settlements" USING btree ("period","status");--> statement-breakpoint
CREATE INDEX "partner_share_changes_partner_idx" ON "partner_share_changes" USING btree ("partner_id","effective_from");--> statement-breakpoint
CREATE UNIQUE INDEX "partner_transactions_invoice_key" ON "partner_transactions" USING btree ("invoice_id");--> statement-breakpoint
CREATE INDEX "partner_transactions_partner_idx" ON "partner_transactions" USING btree ("partner_id","occurred_at");--> statement-breakpoint
CREATE INDEX "partner_transactions_occurred_idx" ON "partner_transactions" USING btree ("occurred_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "partners_organization_key" ON "partners" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "partners_code_key" ON "partners" USING btree ("code");