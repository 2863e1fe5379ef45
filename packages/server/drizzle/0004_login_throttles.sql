CREATE TABLE "login_throttles" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" integer NOT NULL,
	"last_failure_at" timestamp(6) with time zone NOT NULL,
	"locked_until" timestamp(6) with time zone
);
