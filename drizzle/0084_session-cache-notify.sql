-- The per-instance session cache (decision 166) is told, where the write happens, which cached lookups
-- a statement made stale: pg_notify('session_changes', ...) with 'u:<user ids>' or 'o:<organisation ids>'
-- (comma-separated), or '*' (forget everything) when a statement changed more than 100 of them or
-- truncated a table. One notification per statement and kind (statement-level triggers with transition
-- tables), sent when the writing transaction commits, to every instance's LISTEN.
CREATE OR REPLACE FUNCTION "session_cache_notify"(kind text, ids text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN
    RETURN;
  END IF;
  IF cardinality(ids) > 100 THEN
    PERFORM pg_notify('session_changes', '*');
  ELSE
    PERFORM pg_notify('session_changes', kind || ':' || array_to_string(ids, ','));
  END IF;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "session_cache_forget_all"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('session_changes', '*');
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A session ended (signed out, revoked, expired and swept, its user or organisation gone): its user's lookups.
CREATE OR REPLACE FUNCTION "sessions_cache_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM session_cache_notify('u', (SELECT array_agg(DISTINCT user_id::text) FROM old_rows));
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A session changed in what the cache holds: its user, its persistence, its step-up confirmation, or an
-- expiry brought forward. A touch (last used and expiry moved on, written at most once an hour) is not:
-- an instance holding the older times touches once more at worst, as it would without a cache.
-- The join of the transition tables is planned on each call (EXECUTE), as migration 0083 explains.
CREATE OR REPLACE FUNCTION "sessions_cache_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text[];
BEGIN
  EXECUTE $q$
    SELECT array_agg(DISTINCT x) FROM (
      SELECT unnest(ARRAY[o.user_id::text, n.user_id::text]) AS x
        FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE n.expires_at < o.expires_at
          OR (to_jsonb(o) - 'last_used_at' - 'expires_at' - 'ip_address' - 'user_agent')
             IS DISTINCT FROM (to_jsonb(n) - 'last_used_at' - 'expires_at' - 'ip_address' - 'user_agent')) s
  $q$ INTO changed;
  PERFORM session_cache_notify('u', changed);
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A user changed in anything but the last two-factor step (role, status, suspension, verification,
-- password, two-factor, language, name...) or deleted. Every column counts unless listed here, so a
-- column added later and read by the session's lookup is covered without touching this trigger.
CREATE OR REPLACE FUNCTION "users_cache_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text[];
BEGIN
  EXECUTE $q$
    SELECT array_agg(n.id::text)
      FROM new_rows n JOIN old_rows o ON o.id = n.id
     WHERE (to_jsonb(o) - 'totp_last_step') IS DISTINCT FROM (to_jsonb(n) - 'totp_last_step')
  $q$ INTO changed;
  PERFORM session_cache_notify('u', changed);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "users_cache_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM session_cache_notify('u', (SELECT array_agg(id::text) FROM old_rows));
  RETURN NULL;
END $$;
--> statement-breakpoint
-- An organisation changed in any column (status, suspension, plan, two-factor rule, time zone, language...) or deleted.
CREATE OR REPLACE FUNCTION "organizations_cache_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text[];
BEGIN
  EXECUTE $q$
    SELECT array_agg(n.id::text)
      FROM new_rows n JOIN old_rows o ON o.id = n.id
     WHERE to_jsonb(o) IS DISTINCT FROM to_jsonb(n)
  $q$ INTO changed;
  PERFORM session_cache_notify('o', changed);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "organizations_cache_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM session_cache_notify('o', (SELECT array_agg(id::text) FROM old_rows));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "sessions_cache_deleted" AFTER DELETE ON "sessions" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "sessions_cache_deleted"();
--> statement-breakpoint
CREATE TRIGGER "sessions_cache_updated" AFTER UPDATE ON "sessions" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "sessions_cache_updated"();
--> statement-breakpoint
CREATE TRIGGER "sessions_cache_truncated" AFTER TRUNCATE ON "sessions"
  FOR EACH STATEMENT EXECUTE FUNCTION "session_cache_forget_all"();
--> statement-breakpoint
CREATE TRIGGER "users_cache_updated" AFTER UPDATE ON "users" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "users_cache_updated"();
--> statement-breakpoint
CREATE TRIGGER "users_cache_deleted" AFTER DELETE ON "users" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "users_cache_deleted"();
--> statement-breakpoint
CREATE TRIGGER "users_cache_truncated" AFTER TRUNCATE ON "users"
  FOR EACH STATEMENT EXECUTE FUNCTION "session_cache_forget_all"();
--> statement-breakpoint
CREATE TRIGGER "organizations_cache_updated" AFTER UPDATE ON "organizations" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "organizations_cache_updated"();
--> statement-breakpoint
CREATE TRIGGER "organizations_cache_deleted" AFTER DELETE ON "organizations" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "organizations_cache_deleted"();
--> statement-breakpoint
CREATE TRIGGER "organizations_cache_truncated" AFTER TRUNCATE ON "organizations"
  FOR EACH STATEMENT EXECUTE FUNCTION "session_cache_forget_all"();
