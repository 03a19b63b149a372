CREATE TABLE "rest_hooks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"event" text NOT NULL,
	"target_url" text NOT NULL,
	"secret_encrypted" text NOT NULL,
	"api_key_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_delivery_at" timestamp with time zone,
	"last_delivery_status" text
);
--> statement-breakpoint
CREATE TABLE "integration_connections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"status" text DEFAULT 'connected' NOT NULL,
	"account_label" text,
	"external_account_id" text,
	"scopes" text[] DEFAULT '{}'::text[] NOT NULL,
	"access_token_sealed" text,
	"refresh_token_sealed" text,
	"token_expires_at" timestamp with time zone,
	"refresh_claimed_until" timestamp with time zone,
	"health" text DEFAULT 'healthy' NOT NULL,
	"last_sync_at" timestamp with time zone,
	"last_error" text,
	"last_error_at" timestamp with time zone,
	"sync_state" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"context" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"connected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"disconnected_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "integration_oauth_states" (
	"state_hash" text PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"code_verifier_sealed" text,
	"context" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
DROP INDEX "webhook_deliveries_org_message_event_idx";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "hook_id" uuid;--> statement-breakpoint
ALTER TABLE "rest_hooks" ADD CONSTRAINT "rest_hooks_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rest_hooks" ADD CONSTRAINT "rest_hooks_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integration_connections" ADD CONSTRAINT "integration_connections_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integration_connections" ADD CONSTRAINT "integration_connections_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integration_oauth_states" ADD CONSTRAINT "integration_oauth_states_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integration_oauth_states" ADD CONSTRAINT "integration_oauth_states_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "rest_hooks_org_event_target_idx" ON "rest_hooks" USING btree ("organization_id","event","target_url");--> statement-breakpoint
CREATE INDEX "rest_hooks_org_created_idx" ON "rest_hooks" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "integration_connections_org_provider_idx" ON "integration_connections" USING btree ("organization_id","provider");--> statement-breakpoint
CREATE INDEX "integration_connections_expiry_idx" ON "integration_connections" USING btree ("token_expires_at") WHERE status = 'connected' and refresh_token_sealed is not null;--> statement-breakpoint
CREATE INDEX "integration_oauth_states_expires_idx" ON "integration_oauth_states" USING btree ("expires_at");--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_hook_id_rest_hooks_id_fk" FOREIGN KEY ("hook_id") REFERENCES "public"."rest_hooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_hook_message_event_idx" ON "webhook_deliveries" USING btree ("hook_id","message_id","event_type") WHERE message_id is not null and hook_id is not null;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_hook_idx" ON "webhook_deliveries" USING btree ("hook_id") WHERE hook_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_org_message_event_idx" ON "webhook_deliveries" USING btree ("organization_id","message_id","event_type") WHERE message_id is not null and hook_id is null;