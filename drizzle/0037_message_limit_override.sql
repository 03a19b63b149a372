ALTER TABLE "organizations" ADD COLUMN "message_limit_override" integer;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "message_limit_override_reason" text;--> statement-breakpoint
CREATE INDEX "billing_usage_daily_day_idx" ON "billing_usage_daily" USING btree ("day");--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_message_limit_override_check" CHECK ((message_limit_override is null and message_limit_override_reason is null) or (message_limit_override > 0 and length(message_limit_override_reason) > 0));--> statement-breakpoint
-- The monthly message limit follows the plan's price list unless an administrator set an override
-- with its reason (decision 051): kept here, so every writer (sign-up, a plan change on the 1st, the
-- console, the demo data) gets it without remembering to.
CREATE OR REPLACE FUNCTION organizations_message_limit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.message_limit := coalesce(
    NEW.message_limit_override,
    (SELECT p.message_limit FROM billing_plans p WHERE p.code = lower(NEW.plan_type) AND p.billing_type = NEW.billing_type),
    NEW.message_limit);
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER organizations_message_limit BEFORE INSERT OR UPDATE OF plan_type, billing_type, message_limit, message_limit_override
  ON organizations FOR EACH ROW EXECUTE FUNCTION organizations_message_limit();
--> statement-breakpoint
-- Organisations whose limit no longer matched their plan (a Growth plan at 1,000) follow it now; the
-- audit log keeps any limit an administrator set before.
UPDATE organizations SET message_limit = message_limit;
