CREATE TABLE "binary_parts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"binary_id" uuid NOT NULL,
	"index" integer NOT NULL,
	"size" bigint NOT NULL,
	"hash" text NOT NULL,
	"expected_binary_size" bigint NOT NULL,
	"state" text DEFAULT 'uploadable' NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "binary_signatures" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"binary_id" uuid NOT NULL,
	"signing_key_id" uuid NOT NULL,
	"signature" text NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "binary_parts" ADD CONSTRAINT "binary_parts_binary_id_binaries_id_fk" FOREIGN KEY ("binary_id") REFERENCES "public"."binaries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "binary_signatures" ADD CONSTRAINT "binary_signatures_binary_id_binaries_id_fk" FOREIGN KEY ("binary_id") REFERENCES "public"."binaries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "binary_signatures" ADD CONSTRAINT "binary_signatures_signing_key_id_signing_keys_id_fk" FOREIGN KEY ("signing_key_id") REFERENCES "public"."signing_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "binary_parts_binary_index" ON "binary_parts" USING btree ("binary_id","index");--> statement-breakpoint
CREATE UNIQUE INDEX "binary_signatures_binary_key" ON "binary_signatures" USING btree ("binary_id","signing_key_id");--> statement-breakpoint
CREATE INDEX "binary_signatures_org_inserted" ON "binary_signatures" USING btree ("organization_id","inserted_at","id");