-- A conversation is held by a person (person_held_at set) only under its lock, the advisory lock
-- every automated reply is queued under (app/.server/domains/messaging/conversation-lock.ts, the reply
-- gate, decision 097): a writer that forgot the lock could hold the conversation while a reply decided
-- before is being queued, and the bot would speak over the person. Checked where the write happens.
CREATE OR REPLACE FUNCTION conversation_hold_needs_lock() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  k bigint := hashtext('automation:' || NEW.id::text);
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_locks l
    WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid() AND l.granted AND l.objsubid = 1
      AND ((l.classid::bigint << 32) | l.objid::bigint) = k
  ) THEN
    RAISE EXCEPTION 'conversation % held by a person without its lock (lockConversations)', NEW.id USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER conversation_hold_needs_lock BEFORE UPDATE OF person_held_at ON conversations
FOR EACH ROW WHEN (OLD.person_held_at IS NULL AND NEW.person_held_at IS NOT NULL)
EXECUTE FUNCTION conversation_hold_needs_lock();
