-- The System tab's charts over 24 hours, 7 days and 30 days read metric_hours: metric_samples added up
-- by UTC hour (their buckets are 1, 4 and 24 hours, each a whole number of UTC hours), instead of
-- every minute's sample of every instance (12 a minute an instance: 17,000 rows a day for one).
-- Kept by triggers on metric_samples, in the statement that writes the samples:
--   * an insert adds each hour's sum, peak and count to its row (an upsert: concurrent inserts of the
--     same hour add up under the row's lock);
--   * a delete or an update works the hours it touched out again from the samples left;
--   * a truncate empties it.
CREATE TABLE "metric_hours" (
	"name" text NOT NULL,
	"instance_id" text DEFAULT '' NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"total" double precision NOT NULL,
	"peak" double precision NOT NULL,
	"samples" integer NOT NULL,
	CONSTRAINT "metric_hours_name_instance_id_hour_pk" PRIMARY KEY("name","instance_id","hour")
);
--> statement-breakpoint
CREATE INDEX "metric_hours_hour_idx" ON "metric_hours" USING btree ("hour");

--> statement-breakpoint
CREATE FUNCTION jumbe_metric_hours_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO metric_hours (name, instance_id, hour, total, peak, samples)
  SELECT name, instance_id, date_trunc('hour', at, 'UTC'), sum(value), max(value), count(*)
  FROM added GROUP BY 1, 2, 3
  ON CONFLICT (name, instance_id, hour) DO UPDATE SET
    total = metric_hours.total + excluded.total,
    peak = greatest(metric_hours.peak, excluded.peak),
    samples = metric_hours.samples + excluded.samples;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- The hours named by (names[i], instances[i], hours[i]) worked out again from the samples there are.
CREATE FUNCTION jumbe_metric_hours_redo(names text[], instances text[], hours timestamptz[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM metric_hours h USING unnest(names, instances, hours) AS t(name, instance_id, hour)
  WHERE h.name = t.name AND h.instance_id = t.instance_id AND h.hour = t.hour;
  INSERT INTO metric_hours (name, instance_id, hour, total, peak, samples)
  SELECT s.name, s.instance_id, t.hour, sum(s.value), max(s.value), count(*)
  FROM (SELECT DISTINCT * FROM unnest(names, instances, hours) AS u(name, instance_id, hour)) t
  JOIN metric_samples s
    ON s.name = t.name AND s.instance_id = t.instance_id AND s.at >= t.hour AND s.at < t.hour + interval '1 hour'
  GROUP BY 1, 2, 3;
END $$;
--> statement-breakpoint
CREATE FUNCTION jumbe_metric_hours_recount() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM jumbe_metric_hours_redo(array_agg(name), array_agg(instance_id), array_agg(date_trunc('hour', at, 'UTC'))) FROM removed;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- An update may move a sample to another hour: the hours of its old and its new rows. Both
-- transition tables are read through EXECUTE, planned on each call (migration 0083's rule).
CREATE FUNCTION jumbe_metric_hours_recount_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE $q$
    SELECT jumbe_metric_hours_redo(array_agg(name), array_agg(instance_id), array_agg(date_trunc('hour', at, 'UTC')))
    FROM (SELECT name, instance_id, at FROM removed UNION ALL SELECT name, instance_id, at FROM added) r
  $q$;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION jumbe_metric_hours_empty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE metric_hours;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER metric_samples_hours_insert AFTER INSERT ON metric_samples REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION jumbe_metric_hours_add();
--> statement-breakpoint
CREATE TRIGGER metric_samples_hours_delete AFTER DELETE ON metric_samples REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION jumbe_metric_hours_recount();
--> statement-breakpoint
CREATE TRIGGER metric_samples_hours_update AFTER UPDATE ON metric_samples REFERENCING OLD TABLE AS removed NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION jumbe_metric_hours_recount_moved();
--> statement-breakpoint
CREATE TRIGGER metric_samples_hours_truncate AFTER TRUNCATE ON metric_samples
  FOR EACH STATEMENT EXECUTE FUNCTION jumbe_metric_hours_empty();
--> statement-breakpoint
INSERT INTO metric_hours (name, instance_id, hour, total, peak, samples)
SELECT name, instance_id, date_trunc('hour', at, 'UTC'), sum(value), max(value), count(*)
FROM metric_samples GROUP BY 1, 2, 3;
