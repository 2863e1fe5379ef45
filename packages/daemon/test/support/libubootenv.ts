/**
 * Debian's libubootenv-tool (`fw_printenv`, `fw_setenv`) run on a file-backed environment, so
 * the daemon's U-Boot environment code is checked against an independent implementation.
 * Tests skip, saying why, when the tools are missing (apt-get install -y libubootenv-tool).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatFwEnvConfig, locationsFromConfig, type EnvLocations } from '../../src/uboot-env/index.ts';

export const HAS_FW_TOOLS = spawnSync('fw_printenv', ['-V']).error === undefined;
export const NO_FW_TOOLS_REASON = 'libubootenv-tool is not installed (fw_printenv missing): apt-get install -y libubootenv-tool';

export interface FileEnvironment {
  dir: string;
  file: string;
  locations: EnvLocations;
  /** fw_env.config for the tools. */
  configPath: string;
  printenv(): Map<string, string>;
  setenv(name: string, value?: string): void;
  remove(): void;
}

/** A zero-filled file holding one copy (`single`) or two (`redundant`) of `size` bytes after `offset`. */
export function fileEnvironment(layout: 'single' | 'redundant', size = 0x2000, offset = 0x400): FileEnvironment {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-ubootenv-'));
  const file = path.join(dir, 'uboot.env');
  const copies = layout === 'single' ? 1 : 2;
  fs.writeFileSync(file, Buffer.alloc(offset + copies * size));
  const hex = (n: number) => `0x${n.toString(16)}`;
  const locations = locationsFromConfig(
    Array.from({ length: copies }, (_, i) => ({ device: file, offset: hex(offset + i * size), size: hex(size) })),
  );
  const configPath = path.join(dir, 'fw_env.config');
  fs.writeFileSync(configPath, formatFwEnvConfig(locations));
  // An empty default environment, so the tools also run on a blank (invalid) area.
  const defaults = path.join(dir, 'defaults.txt');
  fs.writeFileSync(defaults, '');
  return {
    dir,
    file,
    locations,
    configPath,
    printenv() {
      const out = execFileSync('fw_printenv', ['-c', configPath, '-f', defaults], { stdio: ['ignore', 'pipe', 'pipe'] }).toString('latin1');
      const variables = new Map<string, string>();
      for (const line of out.split('\n')) {
        const eq = line.indexOf('=');
        if (eq > 0) variables.set(line.slice(0, eq), line.slice(eq + 1));
      }
      return variables;
    },
    setenv(name, value) {
      execFileSync('fw_setenv', ['-c', configPath, '-f', defaults, name, ...(value === undefined ? [] : [value])], { stdio: ['ignore', 'pipe', 'pipe'] });
    },
    remove() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
