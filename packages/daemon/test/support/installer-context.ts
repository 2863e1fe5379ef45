/**
 * What an installer's real-tool test hands it: a scratch directory, a minimal configuration, a
 * manifest entry for a file, and a log the test can read back.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ManifestEntry } from '@canopy/sdk/device';
import type { DaemonConfig } from '../../src/config/types.ts';
import type { InstallContext } from '../../src/installers/installer.ts';
import { parseCanopyMetadata } from '../../src/installers/metadata.ts';
import { createLogger } from '../../src/log.ts';

export interface Scratch {
  dir: string;
  config: DaemonConfig;
  lines: string[];
  remove(): void;
}

/** A daemon configuration for installer tests: nothing reachable, files under `dir`; `extra` adds or replaces keys. */
export function installerTestConfig(dir: string, extra: Partial<DaemonConfig> = {}): DaemonConfig {
  return {
    device_api: { url: 'https://127.0.0.1:1', certificate_path: '/unused', private_key_path: '/unused' },
    update_poll_interval: 300,
    update_jitter: 30,
    trusted_signing_keys: [],
    signature_threshold: 1,
    bundle_signature_threshold: 0,
    download_dir: path.join(dir, 'downloads'),
    state_dir: path.join(dir, 'state'),
    install_timeout: 120,
    reboot_command: ['true'],
    remote_access_tunnels: { enabled: false, port_ranges: ['22'], cidr_blocks: [] },
    tunnel_poll_interval: 10,
    log_level: 'debug',
    ...extra,
  };
}

export function scratch(prefix: string, health_check?: string): Scratch {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `canopy-${prefix}-`));
  const config = installerTestConfig(dir, { health_check });
  return { dir, config, lines: [], remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export function entryFor(file: string, canopy: unknown): ManifestEntry {
  const bytes = fs.readFileSync(file);
  return {
    binary_prn: `prn:1:org:binary:${path.basename(file)}`,
    artifact: { prn: 'prn:1:org:artifact:x', name: path.basename(file) },
    artifact_version: { prn: 'prn:1:org:artifact_version:x', version: '1.0.0' },
    custom_metadata: { canopy },
    hash: createHash('sha256').update(bytes).digest('hex'),
    size: bytes.length,
    target: 'x',
    url: 'https://unused',
    signatures: [],
  } as ManifestEntry;
}

/** The context for installing `file` with `canopy` metadata, validated as the loop does. */
export function contextFor(s: Scratch, file: string, canopy: unknown, signal = new AbortController().signal): InstallContext {
  const parsed = parseCanopyMetadata({ canopy });
  if (!parsed.ok) throw new Error(parsed.reason);
  const installer = parsed.metadata.installer;
  const stateDir = path.join(s.config.state_dir, 'installers', installer);
  fs.mkdirSync(stateDir, { recursive: true });
  return {
    file,
    entry: entryFor(file, canopy),
    metadata: parsed.metadata,
    config: s.config,
    log: createLogger({ level: 'debug', write: (line) => s.lines.push(line) }),
    signal,
    stateDir,
  };
}
