CREATE TABLE "binary_deltas" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"base_binary_id" uuid NOT NULL,
	"target_binary_id" uuid NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"blob_key" text,
	"size" bigint,
	"hash" text,
	"error" text,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "binary_deltas" ADD CONSTRAINT "binary_deltas_base_binary_id_binaries_id_fk" FOREIGN KEY ("base_binary_id") REFERENCES "public"."binaries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "binary_deltas" ADD CONSTRAINT "binary_deltas_target_binary_id_binaries_id_fk" FOREIGN KEY ("target_binary_id") REFERENCES "public"."binaries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "binary_deltas_pair" ON "binary_deltas" USING btree ("base_binary_id","target_binary_id");--> statement-breakpoint
CREATE INDEX "binary_deltas_target" ON "binary_deltas" USING btree ("target_binary_id");