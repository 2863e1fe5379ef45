CREATE TABLE "deployment_attempts" (
	"deployment_id" uuid NOT NULL,
	"device_id" uuid NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "deployment_attempts_deployment_id_device_id_pk" PRIMARY KEY("deployment_id","device_id")
);
--> statement-breakpoint
CREATE TABLE "deployments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"name" text NOT NULL,
	"firmware_id" uuid NOT NULL,
	"conditions_version" text,
	"conditions_tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"is_active" boolean DEFAULT false NOT NULL,
	"delta_updatable" boolean DEFAULT false NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "firmwares" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"uuid" text NOT NULL,
	"version" text NOT NULL,
	"platform" text,
	"architecture" text,
	"author" text,
	"description" text,
	"vcs_identifier" text,
	"misc" text,
	"fwup_version" text,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"blob_key" text NOT NULL,
	"ttl_seconds" integer,
	"expires_at" timestamp(6) with time zone,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "legacy_device_firmware" (
	"device_id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"firmware_uuid" text NOT NULL,
	"version" text,
	"last_communication_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bundle_overrides" ALTER COLUMN "ends_at" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "deployment_attempts" ADD CONSTRAINT "deployment_attempts_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployment_attempts" ADD CONSTRAINT "deployment_attempts_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_firmware_id_firmwares_id_fk" FOREIGN KEY ("firmware_id") REFERENCES "public"."firmwares"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "firmwares" ADD CONSTRAINT "firmwares_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "legacy_device_firmware" ADD CONSTRAINT "legacy_device_firmware_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deployment_attempts_device" ON "deployment_attempts" USING btree ("device_id");--> statement-breakpoint
CREATE UNIQUE INDEX "deployments_product_name_unique" ON "deployments" USING btree ("product_id","name");--> statement-breakpoint
CREATE INDEX "deployments_org_inserted" ON "deployments" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "deployments_firmware" ON "deployments" USING btree ("firmware_id");--> statement-breakpoint
CREATE UNIQUE INDEX "firmwares_org_uuid_unique" ON "firmwares" USING btree ("organization_id","uuid");--> statement-breakpoint
CREATE INDEX "firmwares_product_inserted" ON "firmwares" USING btree ("product_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "firmwares_org_inserted" ON "firmwares" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "firmwares_expires" ON "firmwares" USING btree ("expires_at") WHERE "firmwares"."expires_at" is not null;