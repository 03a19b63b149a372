-- A contact active in a period, as analytics_note_contact notes it, but its changes to
-- contact_first_counts are answered as rows (+1 or -1 a key) instead of written: the fold adds a
-- batch's up and writes each key once. Written one by one, a key that thousands of new contacts share
-- (this hour's "first seen" on a number) was updated thousands of times in one transaction, each
-- update walking every earlier version of the row (decision 096).
CREATE OR REPLACE FUNCTION analytics_contact_period(p_org uuid, p_contact uuid, p_number text, p_grain text, p_at timestamptz)
RETURNS TABLE (at timestamptz, previous_at timestamptz, delta integer) LANGUAGE plpgsql AS $$
DECLARE
  prev timestamptz;
  nxt timestamptz;
BEGIN
  INSERT INTO contact_active_periods (organization_id, contact_id, phone_number_id, grain, at)
  VALUES (p_org, p_contact, p_number, p_grain, p_at) ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN RETURN; END IF;
  SELECT coalesce(max(c.at), '-infinity') INTO prev FROM contact_active_periods c
   WHERE c.contact_id = p_contact AND c.phone_number_id = p_number AND c.grain = p_grain AND c.at < p_at;
  SELECT min(c.at) INTO nxt FROM contact_active_periods c
   WHERE c.contact_id = p_contact AND c.phone_number_id = p_number AND c.grain = p_grain AND c.at > p_at;
  at := p_at; previous_at := prev; delta := 1;
  RETURN NEXT;
  IF nxt IS NOT NULL THEN
    at := nxt; previous_at := prev; delta := -1;
    RETURN NEXT;
    at := nxt; previous_at := p_at; delta := 1;
    RETURN NEXT;
  END IF;
END $$;
--> statement-breakpoint
-- One period noted and its changes written at once, for a single call (tests, a repair by hand): the
-- same bookkeeping as the fold's, through the function above.
CREATE OR REPLACE FUNCTION analytics_note_contact(p_org uuid, p_contact uuid, p_number text, p_grain text, p_at timestamptz)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO contact_first_counts (organization_id, phone_number_id, grain, at, previous_at, contacts)
  SELECT p_org, p_number, p_grain, d.at, d.previous_at, sum(d.delta)
  FROM analytics_contact_period(p_org, p_contact, p_number, p_grain, p_at) d
  GROUP BY d.at, d.previous_at
  HAVING sum(d.delta) > 0 OR (sum(d.delta) < 0 AND EXISTS (
    SELECT 1 FROM contact_first_counts c
    WHERE c.organization_id = p_org AND c.phone_number_id = p_number AND c.grain = p_grain
      AND c.at = d.at AND c.previous_at = d.previous_at))
  ON CONFLICT (organization_id, phone_number_id, grain, at, previous_at)
  DO UPDATE SET contacts = contact_first_counts.contacts + excluded.contacts
$$;
