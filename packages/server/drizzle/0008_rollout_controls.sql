ALTER TABLE "releases" ADD COLUMN "paused_at" timestamp(6) with time zone;--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "cancelled_at" timestamp(6) with time zone;