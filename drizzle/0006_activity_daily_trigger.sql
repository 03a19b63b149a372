-- The activity count triggers also keep activity_daily_counts (Africa/Nairobi calendar days), so a
-- 90-day period's stat cards add up about 90 rows per type and status instead of 2,160.
CREATE OR REPLACE FUNCTION activity_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO activity_hourly_counts (organization_id, hour, type, status, count)
  SELECT organization_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', type, status, count(*)
  FROM inserted GROUP BY 1, 2, 3, 4
  ON CONFLICT (organization_id, hour, type, status) DO UPDATE SET count = activity_hourly_counts.count + excluded.count;
  INSERT INTO activity_daily_counts (organization_id, day, type, status, count)
  SELECT organization_id, (created_at AT TIME ZONE 'Africa/Nairobi')::date, type, status, count(*)
  FROM inserted GROUP BY 1, 2, 3, 4
  ON CONFLICT (organization_id, day, type, status) DO UPDATE SET count = activity_daily_counts.count + excluded.count;
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
  UPDATE activity_daily_counts c SET count = c.count - d.n
  FROM (
    SELECT organization_id, (created_at AT TIME ZONE 'Africa/Nairobi')::date AS day, type, status, count(*) AS n
    FROM deleted GROUP BY 1, 2, 3, 4
  ) d
  WHERE c.organization_id = d.organization_id AND c.day = d.day AND c.type = d.type AND c.status = d.status;
  RETURN NULL;
END $$;
--> statement-breakpoint
INSERT INTO activity_daily_counts (organization_id, day, type, status, count)
SELECT organization_id, (created_at AT TIME ZONE 'Africa/Nairobi')::date, type, status, count(*)
FROM activity_logs GROUP BY 1, 2, 3, 4;
