CREATE TABLE "messaging_limit_recipients" (
	"portfolio_id" text NOT NULL,
	"recipient" text NOT NULL,
	"reached_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "messaging_limit_recipients_portfolio_id_recipient_pk" PRIMARY KEY("portfolio_id","recipient")
);
--> statement-breakpoint
ALTER TABLE "whatsapp_accounts" ADD COLUMN "token_refused_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "whatsapp_accounts" ADD COLUMN "token_refusal" text;--> statement-breakpoint
CREATE INDEX "messaging_limit_recipients_reached_idx" ON "messaging_limit_recipients" USING btree ("portfolio_id","reached_at");