ALTER TABLE "cohorts" ADD COLUMN "maintenance_windows" jsonb;--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "maintenance_windows" jsonb;