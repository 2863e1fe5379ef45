ALTER TABLE "releases" ADD COLUMN "soak_seconds" integer;--> statement-breakpoint
ALTER TABLE "device_update_reports" ADD COLUMN "soak_started_at" timestamp(6) with time zone;--> statement-breakpoint
ALTER TABLE "device_update_reports" ADD COLUMN "healthy_at" timestamp(6) with time zone;--> statement-breakpoint
-- Rows installed before soaks existed start theirs at their report, so a soak set later on their release can confirm them.
UPDATE "device_update_reports" SET "soak_started_at" = "updated_at" WHERE "status" = 'installed';
