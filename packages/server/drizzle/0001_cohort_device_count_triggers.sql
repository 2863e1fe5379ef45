-- cohort_device_counts (src/releases/schema.ts) follows every change of devices.cohort_id, by
-- whatever writer. Inserts and deletes are counted per statement (one upsert per cohort, not
-- per device); a move between cohorts per row, and only when cohort_id actually changes, so
-- the frequent updates of other device columns never touch the counts. Rows are upserted in
-- cohort order so two writers never lock the same two count rows in opposite orders.
CREATE FUNCTION cohort_device_counts_add(cohort uuid, delta integer) RETURNS void LANGUAGE sql AS $$
  INSERT INTO cohort_device_counts (cohort_id, stripe, device_count) VALUES (cohort, pg_backend_pid() % 16, delta)
  ON CONFLICT (cohort_id, stripe) DO UPDATE SET device_count = cohort_device_counts.device_count + excluded.device_count;
$$;
--> statement-breakpoint
CREATE FUNCTION cohort_device_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM cohort_device_counts_add(cohort_id, n::integer) FROM (SELECT cohort_id, count(*) AS n FROM new_devices WHERE cohort_id IS NOT NULL GROUP BY cohort_id ORDER BY cohort_id) c;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION cohort_device_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM cohort_device_counts_add(cohort_id, -n::integer) FROM (SELECT cohort_id, count(*) AS n FROM old_devices WHERE cohort_id IS NOT NULL GROUP BY cohort_id ORDER BY cohort_id) c;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION cohort_device_counts_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM cohort_device_counts_add(c.cohort_id, c.delta) FROM (VALUES (OLD.cohort_id, -1), (NEW.cohort_id, 1)) AS c(cohort_id, delta) WHERE c.cohort_id IS NOT NULL ORDER BY c.cohort_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER devices_count_inserted AFTER INSERT ON devices REFERENCING NEW TABLE AS new_devices FOR EACH STATEMENT EXECUTE FUNCTION cohort_device_counts_inserted();
--> statement-breakpoint
CREATE TRIGGER devices_count_deleted AFTER DELETE ON devices REFERENCING OLD TABLE AS old_devices FOR EACH STATEMENT EXECUTE FUNCTION cohort_device_counts_deleted();
--> statement-breakpoint
CREATE TRIGGER devices_count_moved AFTER UPDATE OF cohort_id ON devices FOR EACH ROW WHEN (OLD.cohort_id IS DISTINCT FROM NEW.cohort_id) EXECUTE FUNCTION cohort_device_counts_moved();
--> statement-breakpoint
-- Devices that existed before the triggers.
INSERT INTO cohort_device_counts (cohort_id, stripe, device_count) SELECT cohort_id, 0, count(*) FROM devices WHERE cohort_id IS NOT NULL GROUP BY cohort_id;
