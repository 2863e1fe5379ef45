CREATE TABLE "bundle_signatures" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"bundle_id" uuid NOT NULL,
	"signing_key_id" uuid NOT NULL,
	"target" text DEFAULT '' NOT NULL,
	"signature" text NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bundle_signatures" ADD CONSTRAINT "bundle_signatures_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bundle_signatures" ADD CONSTRAINT "bundle_signatures_signing_key_id_signing_keys_id_fk" FOREIGN KEY ("signing_key_id") REFERENCES "public"."signing_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "bundle_signatures_bundle_key_target" ON "bundle_signatures" USING btree ("bundle_id","signing_key_id","target");--> statement-breakpoint
CREATE INDEX "bundle_signatures_org_inserted" ON "bundle_signatures" USING btree ("organization_id","inserted_at","id");