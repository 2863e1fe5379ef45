CREATE TABLE "binaries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"artifact_version_id" uuid NOT NULL,
	"target" text NOT NULL,
	"hash" text NOT NULL,
	"size" bigint NOT NULL,
	"description" text,
	"custom_metadata" jsonb,
	"state" text DEFAULT 'uploadable' NOT NULL,
	"revision" integer DEFAULT 1 NOT NULL,
	"hash_error" text,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bundle_artifact_versions" (
	"bundle_id" uuid NOT NULL,
	"artifact_version_id" uuid NOT NULL,
	"index" integer NOT NULL,
	CONSTRAINT "bundle_artifact_versions_bundle_id_index_pk" PRIMARY KEY("bundle_id","index")
);
--> statement-breakpoint
CREATE TABLE "bundles" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "binaries" ADD CONSTRAINT "binaries_artifact_version_id_artifact_versions_id_fk" FOREIGN KEY ("artifact_version_id") REFERENCES "public"."artifact_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bundle_artifact_versions" ADD CONSTRAINT "bundle_artifact_versions_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bundle_artifact_versions" ADD CONSTRAINT "bundle_artifact_versions_artifact_version_id_artifact_versions_id_fk" FOREIGN KEY ("artifact_version_id") REFERENCES "public"."artifact_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "binaries_version_target_live" ON "binaries" USING btree ("artifact_version_id","target") WHERE state <> 'destroyed';--> statement-breakpoint
CREATE INDEX "binaries_org_inserted" ON "binaries" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "bundle_artifact_versions_version" ON "bundle_artifact_versions" USING btree ("artifact_version_id");--> statement-breakpoint
CREATE INDEX "bundles_org_inserted" ON "bundles" USING btree ("organization_id","inserted_at","id");