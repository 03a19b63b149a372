ALTER TABLE "conversations" ADD COLUMN "person_held_at" timestamp with time zone;--> statement-breakpoint
-- An open conversation already assigned to a person is held by them: automations stay silent there, as before.
UPDATE "conversations" SET "person_held_at" = now() WHERE "assigned_to" IS NOT NULL AND "status" = 'open';
