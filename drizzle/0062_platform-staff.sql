ALTER TABLE "users" ADD COLUMN "platform_role" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "staff_suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "two_factor_required" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "invitations" ADD COLUMN "platform_role" text;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_platform_role_check" CHECK (platform_role is null or platform_role in ('owner', 'finance', 'support'));--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_platform_role_check" CHECK (platform_role is null or platform_role in ('owner', 'finance', 'support'));--> statement-breakpoint
-- The administrators there are before staff roles (issue 74) run the whole console: owners.
UPDATE "users" SET "platform_role" = 'owner' WHERE "usertype" = 'admin';
