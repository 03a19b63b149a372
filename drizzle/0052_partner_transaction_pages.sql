DROP INDEX "partner_transactions_partner_idx";--> statement-breakpoint
CREATE INDEX "partner_transactions_kind_idx" ON "partner_transactions" USING btree ("kind","occurred_at","id");--> statement-breakpoint
CREATE INDEX "partner_transactions_partner_idx" ON "partner_transactions" USING btree ("partner_id","occurred_at","id");