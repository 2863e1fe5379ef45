CREATE TABLE "phase_claims" (
	"release_id" uuid NOT NULL,
	"device_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "releases" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"cohort_id" uuid NOT NULL,
	"bundle_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"required" boolean DEFAULT false NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"schedule_date" timestamp(6) with time zone,
	"version" text,
	"version_requirement" text,
	"phase_mode" text DEFAULT 'numeric' NOT NULL,
	"phase_tags" text[],
	"phase_value" double precision,
	"phase_claim_count" integer DEFAULT 0 NOT NULL,
	"next_release_id" uuid,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bundle_override_devices" (
	"bundle_override_id" uuid NOT NULL,
	"device_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bundle_override_devices_bundle_override_id_device_id_pk" PRIMARY KEY("bundle_override_id","device_id")
);
--> statement-breakpoint
CREATE TABLE "bundle_overrides" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"bundle_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"starts_at" timestamp(6) with time zone NOT NULL,
	"ends_at" timestamp(6) with time zone NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "phase_claims" ADD CONSTRAINT "phase_claims_release_id_releases_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."releases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phase_claims" ADD CONSTRAINT "phase_claims_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "releases" ADD CONSTRAINT "releases_cohort_id_cohorts_id_fk" FOREIGN KEY ("cohort_id") REFERENCES "public"."cohorts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "releases" ADD CONSTRAINT "releases_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bundle_override_devices" ADD CONSTRAINT "bundle_override_devices_bundle_override_id_bundle_overrides_id_fk" FOREIGN KEY ("bundle_override_id") REFERENCES "public"."bundle_overrides"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bundle_override_devices" ADD CONSTRAINT "bundle_override_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bundle_overrides" ADD CONSTRAINT "bundle_overrides_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "phase_claims_release_device" ON "phase_claims" USING btree ("release_id","device_id");--> statement-breakpoint
CREATE INDEX "phase_claims_device" ON "phase_claims" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "releases_org_inserted" ON "releases" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "releases_cohort" ON "releases" USING btree ("cohort_id");--> statement-breakpoint
CREATE INDEX "releases_bundle" ON "releases" USING btree ("bundle_id");--> statement-breakpoint
CREATE INDEX "bundle_override_devices_device" ON "bundle_override_devices" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "bundle_overrides_org_inserted" ON "bundle_overrides" USING btree ("organization_id","inserted_at","id");