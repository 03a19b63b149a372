CREATE TABLE "partner_referral_reviews" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"partner_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"matches" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"decided_by" uuid,
	"decided_at" timestamp with time zone,
	"decision_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "partner_referral_reviews_status_check" CHECK (status in ('pending', 'approved', 'rejected')),
	CONSTRAINT "partner_referral_reviews_decision_check" CHECK ((status = 'pending') = (decided_at is null) and (status <> 'rejected' or coalesce(length(decision_reason), 0) > 0))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "partner_referral_reviews_pending_key" ON "partner_referral_reviews" USING btree ("organization_id") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "partner_referral_reviews_status_idx" ON "partner_referral_reviews" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "partner_referral_reviews_partner_idx" ON "partner_referral_reviews" USING btree ("partner_id","created_at");