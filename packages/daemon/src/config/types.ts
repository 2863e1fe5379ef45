/**
 * The daemon's run-time configuration, after validation and defaults (config/schema.ts checks a
 * file against the documented schema: site/docs/canopy-core/tools/canopy-daemon/run-time-configuration/schema.md).
 */
import type { LogLevel } from '../log.ts';

export interface UbootEnvironmentCopy {
  /** Block or MTD device, or a plain file (tests, boot partitions). */
  device: string;
  /** Byte offset of the environment in the device. */
  offset: number;
  /** Size of the environment area in bytes. */
  size: number;
  /** Erase size, SPI NOR flash only. */
  sector_size?: number;
}

export interface UbootEnvironmentConfig {
  copies: UbootEnvironmentCopy[];
  variables: {
    active_slot: string;
    upgrade_available: string;
    boot_count: string;
    boot_limit: string;
  };
}

export interface DaemonConfig {
  device_api: {
    url: string;
    certificate_path: string;
    private_key_path: string;
    /** Undefined: the system's CA store. */
    server_ca_path?: string;
  };
  update_poll_interval: number;
  update_jitter: number;
  /** Paths of Ed25519 public keys (PEM), as configured. */
  trusted_signing_keys: string[];
  /** How many distinct trusted keys must have signed a binary (default 1). */
  signature_threshold: number;
  /**
   * How many distinct trusted keys must have signed the bundle's binaries as a whole (bundle
   * signatures); 0 (default): not checked.
   */
  bundle_signature_threshold: number;
  download_dir: string;
  /** Where the daemon keeps its persisted state (state.json); default /data/canopy/state. */
  state_dir: string;
  install_timeout: number;
  health_check?: string;
  /** argv run to reboot the device after an install that needs it; default systemctl reboot. */
  reboot_command: string[];
  /** argv run before an offered update is downloaded: exit 0 = ready; else not now (update/readiness.ts). */
  readiness_command?: string[];
  /** Seconds the readiness command may take; past it the device is not ready (default 30). */
  readiness_timeout?: number;
  remote_access_tunnels: {
    enabled: boolean;
    port_ranges: string[];
    cidr_blocks: string[];
    /**
     * Whether the web console's shell may open on this device (a tunnel with device_tunnel_port 0
     * reaches the daemon's own PTY service instead of a local port). Default true; absent is true.
     */
    shell?: boolean;
  };
  tunnel_poll_interval: number;
  uboot_environment?: UbootEnvironmentConfig;
  /** GRUB's environment block instead of U-Boot's (grub-env/): the file and the tool that edits it. */
  grub_environment?: {
    file: string;
    /** grub-editenv's path or name; default `grub-editenv`. */
    editenv?: string;
    variables: UbootEnvironmentConfig['variables'];
  };
  /** The two A/B slots the avocado-ab installer writes images to. */
  avocado_ab?: {
    slots: { a: string; b: string };
  };
  /**
   * TUF verification before any download: the root installed with the daemon (copied into
   * state_dir/tuf on first use, then updated only by properly signed roots) and the product
   * whose delegated targets list this device's binaries.
   */
  tuf?: { root: string; product: string };
  /**
   * Delta updates (deltas/): whether to take a delta the manifest offers, whether to keep a copy
   * of each installed binary as the next delta's base (installers with nothing to read back), and
   * the zstd program. Absent (older callers): enabled, no copy, `zstd`.
   */
  deltas?: { enabled: boolean; keep_base: boolean; zstd: string };
  log_level: LogLevel;
}
