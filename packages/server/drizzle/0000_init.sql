CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"user_id" uuid,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"token_prefix" text NOT NULL,
	"is_session" boolean DEFAULT false NOT NULL,
	"expires_at" timestamp(6) with time zone,
	"revoked_at" timestamp(6) with time zone,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "organizations_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"email" text,
	"username" text,
	"password_hash" text NOT NULL,
	"role" text NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "products" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"archived" boolean DEFAULT false NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cohorts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "devices" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"cohort_id" uuid,
	"identifier" text NOT NULL,
	"description" text,
	"quarantined" boolean DEFAULT false NOT NULL,
	"archived" boolean DEFAULT false NOT NULL,
	"tags" text[],
	"target" text,
	"last_connected_at" timestamp(6) with time zone,
	"reported_bundle_prn" text,
	"reported_release_prn" text,
	"reported_release_version" text,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "artifact_versions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"artifact_id" uuid NOT NULL,
	"version" text NOT NULL,
	"description" text,
	"custom_metadata" jsonb,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "artifacts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"custom_metadata" jsonb,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "signing_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"value" text NOT NULL,
	"keyid" text NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"type" text NOT NULL,
	"subtype" text NOT NULL,
	"actor_prn" text,
	"resource_prn" text,
	"data" jsonb NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"key" text,
	"payload" jsonb NOT NULL,
	"run_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp(6) with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
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
CREATE TABLE "webhook_attempts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"webhook_id" uuid NOT NULL,
	"delivery_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"status_code" integer,
	"latency_ms" integer NOT NULL,
	"error" text,
	"detail" text,
	"next_attempt_at" timestamp(6) with time zone,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"webhook_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp(6) with time zone,
	"lease_token" uuid,
	"first_attempt_at" timestamp(6) with time zone,
	"completed_at" timestamp(6) with time zone,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"url" text NOT NULL,
	"description" text,
	"enabled_events" jsonb NOT NULL,
	"state" text NOT NULL,
	"secret_sealed" text NOT NULL,
	"previous_secret_sealed" text,
	"previous_secret_expires_at" timestamp(6) with time zone,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tunnels" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"device_id" uuid NOT NULL,
	"state" text NOT NULL,
	"device_tunnel_port" integer NOT NULL,
	"cidr_block_allowlist" text[] NOT NULL,
	"expires_at" timestamp(6) with time zone NOT NULL,
	"close_reason" text,
	"device_proxy_ip_address" text,
	"device_proxy_port" integer,
	"device_public_key" text,
	"server_proxy_ip_address" text,
	"server_proxy_port" integer,
	"server_public_key" text,
	"server_private_key_sealed" text,
	"server_tunnel_ip_address" text,
	"server_tunnel_port" integer,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "web_console_shells" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"device_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp(6) with time zone NOT NULL,
	"consumed_at" timestamp(6) with time zone,
	"created_by_prn" text,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cohort_device_counts" (
	"cohort_id" uuid NOT NULL,
	"stripe" integer NOT NULL,
	"device_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "cohort_device_counts_cohort_id_stripe_pk" PRIMARY KEY("cohort_id","stripe")
);
--> statement-breakpoint
CREATE TABLE "phase_claims" (
	"release_id" uuid NOT NULL,
	"device_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"inserted_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "release_chain_versions" (
	"cohort_id" uuid PRIMARY KEY NOT NULL,
	"version" integer DEFAULT 0 NOT NULL
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
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cohorts" ADD CONSTRAINT "cohorts_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_cohort_id_cohorts_id_fk" FOREIGN KEY ("cohort_id") REFERENCES "public"."cohorts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "artifact_versions" ADD CONSTRAINT "artifact_versions_artifact_id_artifacts_id_fk" FOREIGN KEY ("artifact_id") REFERENCES "public"."artifacts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "binaries" ADD CONSTRAINT "binaries_artifact_version_id_artifact_versions_id_fk" FOREIGN KEY ("artifact_version_id") REFERENCES "public"."artifact_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "binary_parts" ADD CONSTRAINT "binary_parts_binary_id_binaries_id_fk" FOREIGN KEY ("binary_id") REFERENCES "public"."binaries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "binary_signatures" ADD CONSTRAINT "binary_signatures_binary_id_binaries_id_fk" FOREIGN KEY ("binary_id") REFERENCES "public"."binaries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "binary_signatures" ADD CONSTRAINT "binary_signatures_signing_key_id_signing_keys_id_fk" FOREIGN KEY ("signing_key_id") REFERENCES "public"."signing_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bundle_artifact_versions" ADD CONSTRAINT "bundle_artifact_versions_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bundle_artifact_versions" ADD CONSTRAINT "bundle_artifact_versions_artifact_version_id_artifact_versions_id_fk" FOREIGN KEY ("artifact_version_id") REFERENCES "public"."artifact_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_certificates" ADD CONSTRAINT "device_certificates_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tunnels" ADD CONSTRAINT "tunnels_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "web_console_shells" ADD CONSTRAINT "web_console_shells_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cohort_device_counts" ADD CONSTRAINT "cohort_device_counts_cohort_id_cohorts_id_fk" FOREIGN KEY ("cohort_id") REFERENCES "public"."cohorts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phase_claims" ADD CONSTRAINT "phase_claims_release_id_releases_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."releases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phase_claims" ADD CONSTRAINT "phase_claims_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "release_chain_versions" ADD CONSTRAINT "release_chain_versions_cohort_id_cohorts_id_fk" FOREIGN KEY ("cohort_id") REFERENCES "public"."cohorts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "releases" ADD CONSTRAINT "releases_cohort_id_cohorts_id_fk" FOREIGN KEY ("cohort_id") REFERENCES "public"."cohorts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "releases" ADD CONSTRAINT "releases_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bundle_override_devices" ADD CONSTRAINT "bundle_override_devices_bundle_override_id_bundle_overrides_id_fk" FOREIGN KEY ("bundle_override_id") REFERENCES "public"."bundle_overrides"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bundle_override_devices" ADD CONSTRAINT "bundle_override_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bundle_overrides" ADD CONSTRAINT "bundle_overrides_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_token_hash_unique" ON "api_keys" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "api_keys_org_inserted" ON "api_keys" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_unique" ON "users" USING btree (lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "users_username_unique" ON "users" USING btree ("username");--> statement-breakpoint
CREATE UNIQUE INDEX "products_org_name_unique" ON "products" USING btree ("organization_id","name");--> statement-breakpoint
CREATE INDEX "products_org_inserted" ON "products" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "cohorts_org_inserted" ON "cohorts" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "devices_org_identifier_unique" ON "devices" USING btree ("organization_id","identifier");--> statement-breakpoint
CREATE INDEX "devices_org_inserted" ON "devices" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "devices_cohort" ON "devices" USING btree ("cohort_id");--> statement-breakpoint
CREATE INDEX "devices_product" ON "devices" USING btree ("product_id");--> statement-breakpoint
CREATE UNIQUE INDEX "artifact_versions_artifact_version_unique" ON "artifact_versions" USING btree ("artifact_id","version");--> statement-breakpoint
CREATE INDEX "artifact_versions_org_inserted" ON "artifact_versions" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "artifacts_org_inserted" ON "artifacts" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "signing_keys_org_keyid_unique" ON "signing_keys" USING btree ("organization_id","keyid");--> statement-breakpoint
CREATE INDEX "signing_keys_org_inserted" ON "signing_keys" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "events_org_inserted" ON "events" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "events_org_resource" ON "events" USING btree ("organization_id","resource_prn");--> statement-breakpoint
CREATE INDEX "jobs_due" ON "jobs" USING btree ("run_at");--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_key_unique" ON "jobs" USING btree ("key");--> statement-breakpoint
CREATE UNIQUE INDEX "binaries_version_target_live" ON "binaries" USING btree ("artifact_version_id","target") WHERE state <> 'destroyed';--> statement-breakpoint
CREATE INDEX "binaries_org_inserted" ON "binaries" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "binary_parts_binary_index" ON "binary_parts" USING btree ("binary_id","index");--> statement-breakpoint
CREATE UNIQUE INDEX "binary_signatures_binary_key" ON "binary_signatures" USING btree ("binary_id","signing_key_id");--> statement-breakpoint
CREATE INDEX "binary_signatures_org_inserted" ON "binary_signatures" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "bundle_artifact_versions_version" ON "bundle_artifact_versions" USING btree ("artifact_version_id");--> statement-breakpoint
CREATE INDEX "bundles_org_inserted" ON "bundles" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "ca_certificates_fingerprint_unique" ON "ca_certificates" USING btree ("fingerprint");--> statement-breakpoint
CREATE INDEX "ca_certificates_ski" ON "ca_certificates" USING btree ("subject_key_identifier");--> statement-breakpoint
CREATE INDEX "ca_certificates_subject_name" ON "ca_certificates" USING btree ("subject_name");--> statement-breakpoint
CREATE INDEX "ca_certificates_org_inserted" ON "ca_certificates" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "ca_verification_codes_code_unique" ON "ca_verification_codes" USING btree ("code");--> statement-breakpoint
CREATE INDEX "ca_verification_codes_org" ON "ca_verification_codes" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "device_certificates_fingerprint_unique" ON "device_certificates" USING btree ("fingerprint");--> statement-breakpoint
CREATE INDEX "device_certificates_device" ON "device_certificates" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "device_certificates_org_inserted" ON "device_certificates" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "webhook_attempts_webhook_inserted" ON "webhook_attempts" USING btree ("webhook_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE state = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_webhook" ON "webhook_deliveries" USING btree ("webhook_id","inserted_at");--> statement-breakpoint
CREATE INDEX "webhooks_org_inserted" ON "webhooks" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "tunnels_org_inserted" ON "tunnels" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "tunnels_device_inserted" ON "tunnels" USING btree ("device_id","inserted_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "tunnels_open_server_tunnel_port" ON "tunnels" USING btree ("server_tunnel_port") WHERE state = 'open';--> statement-breakpoint
CREATE UNIQUE INDEX "tunnels_open_server_proxy_ip" ON "tunnels" USING btree ("server_proxy_ip_address") WHERE state = 'open';--> statement-breakpoint
CREATE UNIQUE INDEX "tunnels_open_device_proxy_ip" ON "tunnels" USING btree ("device_proxy_ip_address") WHERE state = 'open';--> statement-breakpoint
CREATE UNIQUE INDEX "web_console_shells_token_hash" ON "web_console_shells" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "web_console_shells_org_inserted" ON "web_console_shells" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "phase_claims_release_device" ON "phase_claims" USING btree ("release_id","device_id");--> statement-breakpoint
CREATE INDEX "phase_claims_device" ON "phase_claims" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "releases_org_inserted" ON "releases" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "releases_cohort" ON "releases" USING btree ("cohort_id");--> statement-breakpoint
CREATE INDEX "releases_bundle" ON "releases" USING btree ("bundle_id");--> statement-breakpoint
CREATE INDEX "releases_cohort_phased" ON "releases" USING btree ("cohort_id") WHERE phase_value is distinct from 1;--> statement-breakpoint
CREATE INDEX "bundle_override_devices_device" ON "bundle_override_devices" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "bundle_overrides_org_inserted" ON "bundle_overrides" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "bundle_overrides_bundle" ON "bundle_overrides" USING btree ("bundle_id");