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
ALTER TABLE "tunnels" ADD CONSTRAINT "tunnels_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "web_console_shells" ADD CONSTRAINT "web_console_shells_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tunnels_org_inserted" ON "tunnels" USING btree ("organization_id","inserted_at","id");--> statement-breakpoint
CREATE INDEX "tunnels_device_inserted" ON "tunnels" USING btree ("device_id","inserted_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "tunnels_open_server_tunnel_port" ON "tunnels" USING btree ("server_tunnel_port") WHERE state = 'open';--> statement-breakpoint
CREATE UNIQUE INDEX "tunnels_open_server_proxy_ip" ON "tunnels" USING btree ("server_proxy_ip_address") WHERE state = 'open';--> statement-breakpoint
CREATE UNIQUE INDEX "tunnels_open_device_proxy_ip" ON "tunnels" USING btree ("device_proxy_ip_address") WHERE state = 'open';--> statement-breakpoint
CREATE UNIQUE INDEX "web_console_shells_token_hash" ON "web_console_shells" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "web_console_shells_org_inserted" ON "web_console_shells" USING btree ("organization_id","inserted_at","id");