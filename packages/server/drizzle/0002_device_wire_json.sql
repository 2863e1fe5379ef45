ALTER TABLE "devices" ADD COLUMN "wire_json" text DEFAULT '' NOT NULL;
--> statement-breakpoint
-- devices.wire_json is the device's wire JSON (the Device schema of src/devices/routes.ts), what
-- GET /devices and GET /devices/{prn} send as it is. It is written here, before every insert and
-- update of a row, so no writer (drizzle, raw SQL, a later migration) can leave it stale. The
-- text must be byte for byte what the response serialiser writes from deviceToWire (keys in
-- schema order, strings through to_json, prns and timestamps quoted as they are, RFC 3339 with
-- six fraction digits); this function is the only place it is written.
-- test/api/devices-wire.test.ts compares the two. A change of the Device schema or of a
-- column it shows needs a migration that replaces this function.
CREATE FUNCTION devices_wire_json() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.wire_json :=
    '{"prn":"prn:1:' || NEW.organization_id || ':device:' || NEW.id || '"'
    || ',"organization_prn":"prn:1:' || NEW.organization_id || '"'
    || ',"inserted_at":' || coalesce('"' || to_char(NEW.inserted_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '"', 'null')
    || ',"updated_at":' || coalesce('"' || to_char(NEW.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '"', 'null')
    || ',"identifier":' || coalesce(to_json(NEW.identifier)::text, 'null')
    || ',"product_prn":' || coalesce('"prn:1:' || NEW.organization_id || ':product:' || NEW.product_id || '"', 'null')
    || ',"cohort_prn":' || coalesce('"prn:1:' || NEW.organization_id || ':cohort:' || NEW.cohort_id || '"', 'null')
    || ',"description":' || coalesce(to_json(NEW.description)::text, 'null')
    || ',"quarantined":' || coalesce(NEW.quarantined::text, 'null')
    || ',"archived":' || coalesce(NEW.archived::text, 'null')
    || ',"tags":' || coalesce(array_to_json(NEW.tags)::text, 'null')
    || ',"target":' || coalesce(to_json(NEW.target)::text, 'null')
    || ',"last_connected_at":' || coalesce('"' || to_char(NEW.last_connected_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '"', 'null')
    || ',"reported_bundle_prn":' || coalesce(to_json(NEW.reported_bundle_prn)::text, 'null')
    || ',"reported_release_prn":' || coalesce(to_json(NEW.reported_release_prn)::text, 'null')
    || ',"reported_release_version":' || coalesce(to_json(NEW.reported_release_version)::text, 'null')
    || '}';
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER devices_wire_json BEFORE INSERT OR UPDATE ON devices FOR EACH ROW EXECUTE FUNCTION devices_wire_json();
--> statement-breakpoint
-- Devices that existed before the trigger: any update runs it.
UPDATE devices SET wire_json = '';
