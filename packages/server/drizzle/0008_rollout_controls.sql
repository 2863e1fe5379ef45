CREATE TABLE "penalty_box" (
	"release_id" uuid NOT NULL,
	"device_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"cohort_id" uuid NOT NULL,
	"failed_at" timestamp(6) with time zone[] DEFAULT '{}' NOT NULL,
	"rests" integer DEFAULT 0 NOT NULL,
	"rest_until" timestamp(6) with time zone,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "penalty_box_release_id_device_id_pk" PRIMARY KEY("release_id","device_id")
);
--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "paused_at" timestamp(6) with time zone;--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "cancelled_at" timestamp(6) with time zone;--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "penalty_box" jsonb;--> statement-breakpoint
ALTER TABLE "penalty_box" ADD CONSTRAINT "penalty_box_release_id_releases_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."releases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "penalty_box" ADD CONSTRAINT "penalty_box_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "penalty_box_device" ON "penalty_box" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "penalty_box_resting_cohort" ON "penalty_box" USING btree ("cohort_id") WHERE rest_until is not null;