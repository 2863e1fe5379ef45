CREATE TABLE "release_device_counts" (
	"release_prn" text NOT NULL,
	"stripe" integer NOT NULL,
	"device_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "release_device_counts_release_prn_stripe_pk" PRIMARY KEY("release_prn","stripe")
);
--> statement-breakpoint
CREATE TABLE "release_report_counts" (
	"release_id" uuid NOT NULL,
	"status" text NOT NULL,
	"stripe" integer NOT NULL,
	"device_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "release_report_counts_release_id_status_stripe_pk" PRIMARY KEY("release_id","status","stripe")
);
--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "halt_failure_ratio" double precision;--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "halt_min_reports" integer DEFAULT 5 NOT NULL;--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "halted_at" timestamp(6) with time zone;--> statement-breakpoint
ALTER TABLE "release_report_counts" ADD CONSTRAINT "release_report_counts_release_id_releases_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."releases"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
-- release_report_counts (src/rollouts/schema.ts) follows device_update_reports: a report's
-- status change moves its device from one count to the other; reports without a release
-- (bundle overrides) are not counted. A release deleted in the same statement (its reports
-- cascade) gets no new count row: the EXISTS keeps the foreign key satisfied.
CREATE FUNCTION release_report_counts_add(release uuid, report_status text, delta integer) RETURNS void LANGUAGE sql AS $$
  INSERT INTO release_report_counts (release_id, status, stripe, device_count)
  SELECT release, report_status, pg_backend_pid() % 16, delta WHERE EXISTS (SELECT 1 FROM releases WHERE id = release)
  ON CONFLICT (release_id, status, stripe) DO UPDATE SET device_count = release_report_counts.device_count + excluded.device_count;
$$;
--> statement-breakpoint
CREATE FUNCTION release_report_counts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.release_id IS NOT NULL THEN PERFORM release_report_counts_add(OLD.release_id, OLD.status, -1); END IF;
  IF TG_OP <> 'DELETE' AND NEW.release_id IS NOT NULL THEN PERFORM release_report_counts_add(NEW.release_id, NEW.status, 1); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER device_update_reports_count_inserted AFTER INSERT ON device_update_reports FOR EACH ROW EXECUTE FUNCTION release_report_counts_changed();
--> statement-breakpoint
CREATE TRIGGER device_update_reports_count_deleted AFTER DELETE ON device_update_reports FOR EACH ROW EXECUTE FUNCTION release_report_counts_changed();
--> statement-breakpoint
CREATE TRIGGER device_update_reports_count_updated AFTER UPDATE OF status, release_id ON device_update_reports FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.release_id IS DISTINCT FROM NEW.release_id) EXECUTE FUNCTION release_report_counts_changed();
--> statement-breakpoint
INSERT INTO release_report_counts (release_id, status, stripe, device_count)
  SELECT release_id, status, 0, count(*) FROM device_update_reports WHERE release_id IS NOT NULL GROUP BY release_id, status;
--> statement-breakpoint
-- release_device_counts follows devices.reported_release_prn: inserts and deletes per statement,
-- a change per row and only when the column changes, so other device writes never touch it.
CREATE FUNCTION release_device_counts_add(release text, delta integer) RETURNS void LANGUAGE sql AS $$
  INSERT INTO release_device_counts (release_prn, stripe, device_count) VALUES (release, pg_backend_pid() % 16, delta)
  ON CONFLICT (release_prn, stripe) DO UPDATE SET device_count = release_device_counts.device_count + excluded.device_count;
$$;
--> statement-breakpoint
CREATE FUNCTION release_device_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM release_device_counts_add(prn, n::integer) FROM (SELECT reported_release_prn AS prn, count(*) AS n FROM new_devices WHERE reported_release_prn IS NOT NULL GROUP BY 1 ORDER BY 1) c;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION release_device_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM release_device_counts_add(prn, -n::integer) FROM (SELECT reported_release_prn AS prn, count(*) AS n FROM old_devices WHERE reported_release_prn IS NOT NULL GROUP BY 1 ORDER BY 1) c;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION release_device_counts_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM release_device_counts_add(c.prn, c.delta) FROM (VALUES (OLD.reported_release_prn, -1), (NEW.reported_release_prn, 1)) AS c(prn, delta) WHERE c.prn IS NOT NULL ORDER BY c.prn;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER devices_release_count_inserted AFTER INSERT ON devices REFERENCING NEW TABLE AS new_devices FOR EACH STATEMENT EXECUTE FUNCTION release_device_counts_inserted();
--> statement-breakpoint
CREATE TRIGGER devices_release_count_deleted AFTER DELETE ON devices REFERENCING OLD TABLE AS old_devices FOR EACH STATEMENT EXECUTE FUNCTION release_device_counts_deleted();
--> statement-breakpoint
CREATE TRIGGER devices_release_count_moved AFTER UPDATE OF reported_release_prn ON devices FOR EACH ROW
  WHEN (OLD.reported_release_prn IS DISTINCT FROM NEW.reported_release_prn) EXECUTE FUNCTION release_device_counts_moved();
--> statement-breakpoint
INSERT INTO release_device_counts (release_prn, stripe, device_count)
  SELECT reported_release_prn, 0, count(*) FROM devices WHERE reported_release_prn IS NOT NULL GROUP BY reported_release_prn;
