CREATE TABLE "recurring_jobs" (
	"name" text PRIMARY KEY NOT NULL,
	"queue" text NOT NULL,
	"every_seconds" integer NOT NULL,
	"next_run_at" timestamp with time zone NOT NULL,
	"last_enqueued_at" timestamp with time zone
);
--> statement-breakpoint
DROP INDEX "jobs_ready_idx";--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "priority" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "unique_key" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "finished_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "jobs_pending_idx" ON "jobs" USING btree ("queue","priority" DESC NULLS LAST,"run_at","id") WHERE finished_at is null and failed_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_pending_unique_key_idx" ON "jobs" USING btree ("unique_key") WHERE finished_at is null and failed_at is null;--> statement-breakpoint
CREATE INDEX "jobs_finished_idx" ON "jobs" USING btree ("finished_at") WHERE finished_at is not null;--> statement-breakpoint
CREATE INDEX "webhook_events_received_idx" ON "webhook_events" USING btree ("received_at");