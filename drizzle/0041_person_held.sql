ALTER TABLE "conversations" ADD COLUMN "person_held_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "conversation_entries_org_created_idx" ON "conversation_entries" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "automation_runs_org_created_idx" ON "automation_runs" USING btree ("organization_id","created_at");--> statement-breakpoint
-- An open conversation already assigned to a person is held by them: automations stay silent there, as before.
UPDATE "conversations" SET "person_held_at" = now() WHERE "assigned_to" IS NOT NULL AND "status" = 'open';
