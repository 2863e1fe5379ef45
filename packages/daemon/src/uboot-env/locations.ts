/**
 * Where the environment lives: one or two copies, each a device (block device or file), an
 * offset and a size, as `fw_env.config` describes them and as the daemon's
 * `uboot_environment.copies` repeats them (site/docs/canopy-core/tools/canopy-daemon/
 * uboot-environment/schema.md). Two copies mean the redundant layout.
 *
 * fw_env.config: one line per copy, `device offset size [sector_size [sector_count]]`,
 * fields separated by blanks, numbers in hex (`0x...`) or decimal, `#` starts a comment.
 */
import type { Layout } from './codec.ts';

export interface EnvCopyLocation {
  device: string;
  offset: number;
  size: number;
  /** Erase size (SPI NOR only); kept for the record, files and block devices ignore it. */
  sectorSize: number | null;
}

export interface EnvLocations {
  layout: Layout;
  copies: EnvCopyLocation[];
  /** The size of each copy (both copies have the same size). */
  size: number;
}

/** A problem with a configuration, naming the line or key path it comes from. */
export class LocationError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'LocationError';
  }
}

/** `0x4000` or `16384`; null for anything else (negative offsets are not supported). */
export function parseNumber(text: string): number | null {
  const match = /^(?:0[xX]([0-9a-fA-F]{1,12})|(\d{1,15}))$/.exec(text.trim());
  if (!match) return null;
  const value = match[1] !== undefined ? parseInt(match[1], 16) : Number(match[2]);
  return Number.isSafeInteger(value) ? value : null;
}

function checkCopies(copies: EnvCopyLocation[], where: (index: number) => string): EnvLocations {
  if (copies.length < 1 || copies.length > 2) throw new LocationError(where(copies.length), `one or two copies, got ${copies.length}`);
  copies.forEach((copy, index) => {
    if (copy.size < 16) throw new LocationError(where(index), `size ${copy.size} is too small for an environment`);
  });
  if (copies.length === 2) {
    const [a, b] = copies;
    if (a.size !== b.size) throw new LocationError(where(1), `both copies must have the same size (${a.size} and ${b.size})`);
    if (a.device === b.device && a.offset < b.offset + b.size && b.offset < a.offset + a.size) {
      throw new LocationError(where(1), 'the two copies overlap');
    }
  }
  return { layout: copies.length === 2 ? 'redundant' : 'single', copies, size: copies[0].size };
}

export function parseFwEnvConfig(text: string, source = 'fw_env.config'): EnvLocations {
  const copies: EnvCopyLocation[] = [];
  const lines: number[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) return;
    const where = `${source}:${index + 1}`;
    const fields = line.split(/\s+/);
    if (fields.length < 3 || fields.length > 5) throw new LocationError(where, 'expected "device offset size [sector_size [sector_count]]"');
    const [device, offsetText, sizeText, sectorText] = fields;
    const offset = parseNumber(offsetText);
    const size = parseNumber(sizeText);
    const sectorSize = sectorText === undefined ? null : parseNumber(sectorText);
    if (offset === null) throw new LocationError(where, `invalid offset ${JSON.stringify(offsetText)}`);
    if (size === null) throw new LocationError(where, `invalid size ${JSON.stringify(sizeText)}`);
    if (sectorText !== undefined && sectorSize === null) throw new LocationError(where, `invalid sector size ${JSON.stringify(sectorText)}`);
    copies.push({ device, offset, size, sectorSize });
    lines.push(index + 1);
  });
  return checkCopies(copies, (i) => `${source}:${lines[Math.min(i, lines.length - 1)] ?? 1}`);
}

/**
 * The run-time configuration's `uboot_environment.copies` entries: hex strings as the file
 * writes them, or numbers once config/ has parsed them (`UbootEnvironmentCopy`).
 */
export interface ConfiguredCopy {
  device: string;
  offset: string | number;
  size: string | number;
  sector_size?: string | number;
}

const numberOf = (value: string | number) => (typeof value === 'number' ? (Number.isSafeInteger(value) && value >= 0 ? value : null) : parseNumber(value));

export function locationsFromConfig(copies: readonly ConfiguredCopy[], path = 'uboot_environment.copies'): EnvLocations {
  const parsed = copies.map((copy, index) => {
    const at = `${path}[${index}]`;
    if (typeof copy.device !== 'string' || !copy.device.startsWith('/')) throw new LocationError(`${at}.device`, 'an absolute path');
    const offset = numberOf(copy.offset);
    const size = numberOf(copy.size);
    if (offset === null) throw new LocationError(`${at}.offset`, `invalid number ${JSON.stringify(copy.offset)}`);
    if (size === null) throw new LocationError(`${at}.size`, `invalid number ${JSON.stringify(copy.size)}`);
    let sectorSize: number | null = null;
    if (copy.sector_size !== undefined) {
      sectorSize = numberOf(copy.sector_size);
      if (sectorSize === null) throw new LocationError(`${at}.sector_size`, `invalid number ${JSON.stringify(copy.sector_size)}`);
    }
    return { device: copy.device, offset, size, sectorSize };
  });
  return checkCopies(parsed, (i) => (i < copies.length ? `${path}[${i}]` : path));
}

/** The same locations as `fw_env.config` text, for fw_printenv/fw_setenv (`-c`). */
export function formatFwEnvConfig(locations: EnvLocations): string {
  const hex = (n: number) => `0x${n.toString(16)}`;
  return locations.copies
    .map((copy) => [copy.device, hex(copy.offset), hex(copy.size), ...(copy.sectorSize !== null ? [hex(copy.sectorSize)] : [])].join(' '))
    .join('\n')
    .concat('\n');
}
