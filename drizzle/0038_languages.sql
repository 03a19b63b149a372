ALTER TABLE "organizations" ADD COLUMN "default_locale" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "locale" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_default_locale_check" CHECK (default_locale in ('en', 'sw', 'fr'));--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_locale_check" CHECK (locale is null or locale in ('en', 'sw', 'fr'));