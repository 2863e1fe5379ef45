ALTER TABLE "api_keys" ADD COLUMN "session_ends_at" timestamp(6) with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "last_used_at" timestamp(6) with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "user_agent" text;--> statement-breakpoint
CREATE INDEX "api_keys_user_sessions" ON "api_keys" USING btree ("user_id","inserted_at","id") WHERE "api_keys"."is_session";--> statement-breakpoint
-- Sessions minted before sliding expiry lived 30 days: bring them under the default lifetimes
-- (12 h idle, 7 days in all) rather than leave month-long tokens behind.
UPDATE "api_keys" SET
  "session_ends_at" = least("expires_at", "inserted_at" + interval '7 days'),
  "expires_at" = least("expires_at", now() + interval '12 hours', "inserted_at" + interval '7 days')
WHERE "is_session" AND "revoked_at" IS NULL;
