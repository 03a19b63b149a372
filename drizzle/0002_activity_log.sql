CREATE TABLE "activity_hourly_counts" (
	"organization_id" uuid NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "activity_hourly_counts_organization_id_hour_type_status_pk" PRIMARY KEY("organization_id","hour","type","status")
);
--> statement-breakpoint
ALTER TABLE "activity_hourly_counts" ADD CONSTRAINT "activity_hourly_counts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activity_logs_org_type_created_idx" ON "activity_logs" USING btree ("organization_id","type","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "activity_logs_org_status_created_idx" ON "activity_logs" USING btree ("organization_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "activity_logs_created_idx" ON "activity_logs" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);