DROP INDEX "messages_dispatch_idx";--> statement-breakpoint
DROP INDEX "messages_campaign_idx";--> statement-breakpoint
DROP INDEX "messages_queued_pair_idx";--> statement-breakpoint
CREATE INDEX "messages_campaign_waiting_idx" ON "messages" USING btree ("campaign_id") WHERE campaign_id is not null and accepted_at is null and failed_at is null;--> statement-breakpoint
CREATE INDEX "messages_dispatch_idx" ON "messages" USING btree ("next_attempt_at") WHERE direction = 'outbound' and accepted_at is null and failed_at is null;--> statement-breakpoint
CREATE INDEX "messages_campaign_idx" ON "messages" USING btree ("campaign_id") WHERE campaign_id is not null;--> statement-breakpoint
CREATE INDEX "messages_queued_pair_idx" ON "messages" USING btree ("organization_id","phone_number_id","recipient_phone","seq") WHERE direction = 'outbound' and accepted_at is null and failed_at is null;--> statement-breakpoint
-- Room on each page for a message's status updates to stay on it (HOT updates; drizzle-kit does not
-- model storage parameters, so it lives here). Existing pages keep their packing until rewritten.
ALTER TABLE "messages" SET (fillfactor = 80);
