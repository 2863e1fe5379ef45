CREATE TABLE "claim_failures" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"address" text NOT NULL,
	"failed_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "claim_failures_address_at" ON "claim_failures" USING btree ("address","failed_at");--> statement-breakpoint
CREATE INDEX "claim_failures_at" ON "claim_failures" USING btree ("failed_at");