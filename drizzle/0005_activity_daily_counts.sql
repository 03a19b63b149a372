CREATE TABLE "activity_daily_counts" (
	"organization_id" uuid NOT NULL,
	"day" date NOT NULL,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "activity_daily_counts_organization_id_day_type_status_pk" PRIMARY KEY("organization_id","day","type","status")
);
--> statement-breakpoint
ALTER TABLE "activity_daily_counts" ADD CONSTRAINT "activity_daily_counts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;