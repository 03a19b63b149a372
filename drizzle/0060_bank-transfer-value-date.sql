ALTER TABLE "invoices" ADD COLUMN "value_date" date;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "bank_reference" text;--> statement-breakpoint
CREATE INDEX "invoices_payment_reference_idx" ON "invoices" USING btree (upper("payment_reference") text_pattern_ops) WHERE payment_reference is not null;--> statement-breakpoint
CREATE INDEX "invoices_bank_reference_idx" ON "invoices" USING btree (upper("bank_reference") text_pattern_ops) WHERE bank_reference is not null;