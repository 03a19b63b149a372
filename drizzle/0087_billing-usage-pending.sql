CREATE TABLE "billing_usage_pending" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "billing_usage_pending_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" uuid NOT NULL,
	"day" date NOT NULL,
	"phone_number_id" text NOT NULL,
	"category" text NOT NULL,
	"messages" integer NOT NULL,
	"amount_cents" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "billing_usage_pending_org_day_idx" ON "billing_usage_pending" USING btree ("organization_id","day");