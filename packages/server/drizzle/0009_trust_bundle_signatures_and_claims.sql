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
CREATE TABLE "claim_authorities" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"ca_certificate_id" uuid NOT NULL,
	"certificate_pem" text NOT NULL,
	"sealed_key" text NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "claim_tokens" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text,
	"secret_hash" text NOT NULL,
	"max_uses" integer NOT NULL,
	"uses" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp(6) with time zone NOT NULL,
	"revoked_at" timestamp(6) with time zone,
	"product_id" uuid NOT NULL,
	"cohort_id" uuid,
	"tags" jsonb,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "device_reclaims" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"device_id" uuid NOT NULL,
	"claim_token_id" uuid,
	"public_key_pem" text NOT NULL,
	"public_key_fingerprint" text NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"certificate_pem" text,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bundle_signatures" ADD CONSTRAINT "bundle_signatures_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bundle_signatures" ADD CONSTRAINT "bundle_signatures_signing_key_id_signing_keys_id_fk" FOREIGN KEY ("signing_key_id") REFERENCES "public"."signing_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claim_tokens" ADD CONSTRAINT "claim_tokens_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claim_tokens" ADD CONSTRAINT "claim_tokens_cohort_id_cohorts_id_fk" FOREIGN KEY ("cohort_id") REFERENCES "public"."cohorts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_reclaims" ADD CONSTRAINT "device_reclaims_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_reclaims" ADD CONSTRAINT "device_reclaims_claim_token_id_claim_tokens_id_fk" FOREIGN KEY ("claim_token_id") REFERENCES "public"."claim_tokens"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "bundle_signatures_bundle_key_target" ON "bundle_signatures" USING btree ("bundle_id","signing_key_id","target");--> statement-breakpoint
CREATE INDEX "bundle_signatures_org_inserted" ON "bundle_signatures" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "claim_tokens_secret_hash" ON "claim_tokens" USING btree ("secret_hash");--> statement-breakpoint
CREATE INDEX "claim_tokens_org_inserted" ON "claim_tokens" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "device_reclaims_device_key" ON "device_reclaims" USING btree ("device_id","public_key_fingerprint");--> statement-breakpoint
CREATE INDEX "device_reclaims_org_inserted" ON "device_reclaims" USING btree ("organization_id","inserted_at","id");