-- A number's automated replies in the last hour are counted by the reply gate under the number's lock
-- (decision 097) and by the arrival job: the index holds the runs that replied only (bench/reply-gate.ts:
-- the count read every run of the hour, five times as many, to keep those with a reply).
DROP INDEX "automation_runs_number_idx";--> statement-breakpoint
CREATE INDEX "automation_runs_number_replies_idx" ON "automation_runs" USING btree ("phone_number_id","created_at") WHERE "automation_runs"."reply_id" is not null;