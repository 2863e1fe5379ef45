CREATE TABLE "tuf_device_roots" (
	"device_id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"root_version" integer NOT NULL,
	"reported_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tuf_metadata" (
	"organization_id" uuid NOT NULL,
	"role" text NOT NULL,
	"version" integer NOT NULL,
	"body" jsonb NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tuf_metadata_organization_id_role_version_pk" PRIMARY KEY("organization_id","role","version")
);
--> statement-breakpoint
CREATE TABLE "tuf_online_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"role" text NOT NULL,
	"keyid" text NOT NULL,
	"public_key" jsonb NOT NULL,
	"sealed_private_key" text NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tuf_root_proposals" (
	"organization_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"body" jsonb NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tuf_root_proposals_organization_id_version_pk" PRIMARY KEY("organization_id","version")
);
--> statement-breakpoint
ALTER TABLE "tuf_device_roots" ADD CONSTRAINT "tuf_device_roots_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tuf_device_roots_org" ON "tuf_device_roots" USING btree ("organization_id","root_version");--> statement-breakpoint
CREATE INDEX "tuf_online_keys_org" ON "tuf_online_keys" USING btree ("organization_id","role","inserted_at");