CREATE TABLE "update_slots" (
	"release_id" uuid NOT NULL,
	"device_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"taken_at" timestamp(6) with time zone NOT NULL,
	"expires_at" timestamp(6) with time zone NOT NULL,
	CONSTRAINT "update_slots_release_id_device_id_pk" PRIMARY KEY("release_id","device_id")
);
--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "max_concurrent" integer;--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "slot_timeout_seconds" integer;--> statement-breakpoint
ALTER TABLE "update_slots" ADD CONSTRAINT "update_slots_release_id_releases_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."releases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "update_slots" ADD CONSTRAINT "update_slots_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "update_slots_release_expiry" ON "update_slots" USING btree ("release_id","expires_at");--> statement-breakpoint
CREATE INDEX "update_slots_device" ON "update_slots" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "releases_cohort_capped" ON "releases" USING btree ("cohort_id") WHERE max_concurrent is not null;--> statement-breakpoint
-- A place under a release's concurrency cap (src/updates/slot-claims.ts): the release row's lock,
-- then each query on a fresh snapshot (a VOLATILE function's, under READ COMMITTED), so the count
-- includes every take committed before the lock was granted. One round trip per take.
CREATE FUNCTION canopy_take_slot(p_release uuid, p_device uuid, p_organization uuid) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_cap integer;
  v_timeout integer;
BEGIN
  SELECT max_concurrent, coalesce(slot_timeout_seconds, 3600) INTO v_cap, v_timeout FROM releases WHERE id = p_release FOR UPDATE;
  IF v_cap IS NULL THEN
    RETURN false;
  END IF;
  IF EXISTS (SELECT 1 FROM update_slots WHERE release_id = p_release AND device_id = p_device AND expires_at > now()) THEN
    RETURN true;
  END IF;
  DELETE FROM update_slots WHERE release_id = p_release AND expires_at <= now();
  IF (SELECT count(*) FROM update_slots WHERE release_id = p_release) >= v_cap THEN
    RETURN false;
  END IF;
  INSERT INTO update_slots (release_id, device_id, organization_id, taken_at, expires_at)
  VALUES (p_release, p_device, p_organization, now(), now() + make_interval(secs => v_timeout))
  ON CONFLICT (release_id, device_id) DO UPDATE SET taken_at = excluded.taken_at, expires_at = excluded.expires_at;
  RETURN true;
END
$$;
