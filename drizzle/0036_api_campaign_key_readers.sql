CREATE TABLE "api_key_readers" (
	"api_key_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"first_read_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "api_key_readers_api_key_id_user_id_pk" PRIMARY KEY("api_key_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "api_key_id" uuid;--> statement-breakpoint
ALTER TABLE "api_key_readers" ADD CONSTRAINT "api_key_readers_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_key_readers" ADD CONSTRAINT "api_key_readers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Who held each key before readers were recorded: its creator, and every member the activity log shows revealing it.
INSERT INTO "api_key_readers" ("api_key_id", "user_id", "first_read_at")
SELECT "api_key_id", "user_id", min("at") FROM (
	SELECT k."id" AS "api_key_id", k."created_by" AS "user_id", k."created_at" AS "at"
	FROM "api_keys" k JOIN "users" u ON u."id" = k."created_by"
	UNION ALL
	SELECT k."id", l."user_id", l."created_at"
	FROM "activity_logs" l
	JOIN "api_keys" k ON k."organization_id" = l."organization_id" AND l."details" = 'Key ' || k."prefix" || '...'
	JOIN "users" u ON u."id" = l."user_id"
	WHERE l."action" IN ('API key created', 'API key viewed')
) AS "held"
GROUP BY "api_key_id", "user_id"
ON CONFLICT DO NOTHING;
