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
CREATE INDEX "releases_cohort_capped" ON "releases" USING btree ("cohort_id") WHERE max_concurrent is not null;