CREATE TABLE "device_update_reports" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"device_id" uuid NOT NULL,
	"release_id" uuid,
	"bundle_id" uuid NOT NULL,
	"status" text NOT NULL,
	"progress" double precision,
	"reason" text,
	"event_id" uuid NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "device_update_reports" ADD CONSTRAINT "device_update_reports_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_update_reports" ADD CONSTRAINT "device_update_reports_release_id_releases_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."releases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_update_reports" ADD CONSTRAINT "device_update_reports_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "device_update_reports_device_release" ON "device_update_reports" USING btree ("device_id","release_id") WHERE release_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "device_update_reports_device_bundle" ON "device_update_reports" USING btree ("device_id","bundle_id") WHERE release_id is null;--> statement-breakpoint
CREATE INDEX "device_update_reports_release_status" ON "device_update_reports" USING btree ("release_id","status");