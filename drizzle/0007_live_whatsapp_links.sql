ALTER TABLE "whatsapp_accounts" DROP CONSTRAINT "whatsapp_accounts_waba_id_unique";--> statement-breakpoint
ALTER TABLE "whatsapp_phone_numbers" DROP CONSTRAINT "whatsapp_phone_numbers_phone_number_id_unique";--> statement-breakpoint
ALTER TABLE "whatsapp_phone_numbers" ADD COLUMN "disconnected_at" timestamp with time zone;--> statement-breakpoint
UPDATE "whatsapp_phone_numbers" p SET "disconnected_at" = coalesce(a."disconnected_at", now()) FROM "whatsapp_accounts" a WHERE a."id" = p."account_id" AND a."status" = 'disconnected';--> statement-breakpoint
CREATE INDEX "whatsapp_accounts_waba_idx" ON "whatsapp_accounts" USING btree ("waba_id");--> statement-breakpoint
CREATE UNIQUE INDEX "whatsapp_accounts_live_waba_idx" ON "whatsapp_accounts" USING btree ("waba_id") WHERE status = 'connected';--> statement-breakpoint
CREATE INDEX "whatsapp_phone_numbers_phone_idx" ON "whatsapp_phone_numbers" USING btree ("phone_number_id");--> statement-breakpoint
CREATE UNIQUE INDEX "whatsapp_phone_numbers_live_idx" ON "whatsapp_phone_numbers" USING btree ("phone_number_id") WHERE disconnected_at is null;