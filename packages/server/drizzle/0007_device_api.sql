CREATE TABLE "ca_certificates" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"certificate" text NOT NULL,
	"serial" text NOT NULL,
	"fingerprint" text NOT NULL,
	"subject_key_identifier" text,
	"subject_name" text NOT NULL,
	"description" text,
	"not_before" timestamp(6) with time zone NOT NULL,
	"not_after" timestamp(6) with time zone NOT NULL,
	"jitp" jsonb,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ca_verification_codes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"code" text NOT NULL,
	"expires_at" timestamp(6) with time zone NOT NULL,
	"used_at" timestamp(6) with time zone,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "device_certificates" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"device_id" uuid NOT NULL,
	"certificate" text NOT NULL,
	"serial" text NOT NULL,
	"fingerprint" text NOT NULL,
	"authority_key_identifier" text,
	"not_before" timestamp(6) with time zone NOT NULL,
	"not_after" timestamp(6) with time zone NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "device_certificates" ADD CONSTRAINT "device_certificates_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ca_certificates_fingerprint_unique" ON "ca_certificates" USING btree ("fingerprint");--> statement-breakpoint
CREATE INDEX "ca_certificates_ski" ON "ca_certificates" USING btree ("subject_key_identifier");--> statement-breakpoint
CREATE INDEX "ca_certificates_subject_name" ON "ca_certificates" USING btree ("subject_name");--> statement-breakpoint
CREATE INDEX "ca_certificates_org_inserted" ON "ca_certificates" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "ca_verification_codes_code_unique" ON "ca_verification_codes" USING btree ("code");--> statement-breakpoint
CREATE INDEX "ca_verification_codes_org" ON "ca_verification_codes" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "device_certificates_fingerprint_unique" ON "device_certificates" USING btree ("fingerprint");--> statement-breakpoint
CREATE INDEX "device_certificates_device" ON "device_certificates" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "device_certificates_org_inserted" ON "device_certificates" USING btree ("organization_id","inserted_at","id");