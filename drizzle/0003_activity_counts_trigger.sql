-- activity_hourly_counts follows activity_logs: one upsert per statement (transition tables), so a
-- bulk insert of a million records costs one aggregate, not a million upserts. Hours are UTC hours
-- whatever the session's time zone; Africa/Nairobi (UTC+3) day boundaries fall on them.
CREATE OR REPLACE FUNCTION activity_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO activity_hourly_counts (organization_id, hour, type, status, count)
  SELECT organization_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', type, status, count(*)
  FROM inserted GROUP BY 1, 2, 3, 4
  ON CONFLICT (organization_id, hour, type, status) DO UPDATE SET count = activity_hourly_counts.count + excluded.count;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION activity_counts_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE activity_hourly_counts c SET count = c.count - d.n
  FROM (
    SELECT organization_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, type, status, count(*) AS n
    FROM deleted GROUP BY 1, 2, 3, 4
  ) d
  WHERE c.organization_id = d.organization_id AND c.hour = d.hour AND c.type = d.type AND c.status = d.status;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER activity_logs_count_insert AFTER INSERT ON activity_logs REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION activity_counts_add();
--> statement-breakpoint
CREATE TRIGGER activity_logs_count_delete AFTER DELETE ON activity_logs REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION activity_counts_remove();
--> statement-breakpoint
INSERT INTO activity_hourly_counts (organization_id, hour, type, status, count)
SELECT organization_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', type, status, count(*)
FROM activity_logs GROUP BY 1, 2, 3, 4;
