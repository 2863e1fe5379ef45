/**
 * The U-Boot environment's on-disk format, as a pure codec (no I/O). The layout (CRC32
 * little-endian, a flag byte with two copies, NUL-ended `name=value` entries, NUL padding) and
 * which copy wins are on the docs page uboot-environment/overview.md. The CRC covers the whole
 * data area, padding included, never the flag; a write's flag is the current copy's + 1 mod 256.
 * Where U-Boot leaves a choice, Debian's libubootenv 0.3.2 decides (libubootenv-interop.test.ts):
 * entries sorted by name (byte order); two valid copies with equal flags: copy 0 is current; no
 * valid copy reads as empty and a redundant write goes to copy 1; names and values are latin1
 * byte strings, so bytes the daemon does not understand survive a read-modify-write. NAND's
 * boolean flag scheme is not supported (env-file.ts).
 */
import { crc32 } from './crc32.ts';

export type Layout = 'single' | 'redundant';

/** Bytes before the data area: the CRC, and in the redundant layout the flag. */
export function headerSize(layout: Layout): number {
  return layout === 'redundant' ? 5 : 4;
}

export type Variables = ReadonlyMap<string, string>;

export interface DecodedCopy {
  /** Whether the CRC matches the data; an invalid copy's variables are empty. */
  valid: boolean;
  /** The redundant layout's flag byte; null in the single layout. */
  flag: number | null;
  variables: Map<string, string>;
}

export class EnvironmentError extends Error {
  constructor(
    readonly code: 'invalid_name' | 'invalid_value' | 'too_large' | 'invalid_size',
    message: string,
  ) {
    super(message);
    this.name = 'EnvironmentError';
  }
}

function checkSize(size: number, layout: Layout): void {
  // The smallest environment holds its header and the two NULs of an empty list.
  if (!Number.isInteger(size) || size < headerSize(layout) + 2) throw new EnvironmentError('invalid_size', `environment size ${size} is too small`);
}

/** Splits a data area into its entries; stops at the empty entry that ends the list. */
export function parseData(data: Uint8Array): Map<string, string> {
  const variables = new Map<string, string>();
  let start = 0;
  while (start < data.length) {
    let end = data.indexOf(0, start);
    if (end < 0) end = data.length; // an unterminated last entry: keep what is there
    if (end === start) break; // the second NUL: end of the list
    const entry = Buffer.from(data.subarray(start, end)).toString('latin1');
    const eq = entry.indexOf('=');
    // An entry without '=' is not a variable (U-Boot skips it too).
    if (eq > 0) variables.set(entry.slice(0, eq), entry.slice(eq + 1));
    start = end + 1;
  }
  return variables;
}

export function checkVariable(name: string, value: string): void {
  if (name.length === 0 || /[=\0]/.test(name) || !/^[\x01-\xff]*$/.test(name)) throw new EnvironmentError('invalid_name', `invalid variable name ${JSON.stringify(name)}`);
  if (/\0/.test(value) || !/^[\x00-\xff]*$/.test(value)) throw new EnvironmentError('invalid_value', `invalid value for ${name}: NUL or a character outside latin1`);
}

/** The data area (`dataSize` bytes) holding `variables`, sorted by name. */
export function encodeData(variables: Variables, dataSize: number): Buffer {
  const names = [...variables.keys()].sort((a, b) => Buffer.compare(Buffer.from(a, 'latin1'), Buffer.from(b, 'latin1')));
  const parts: Buffer[] = [];
  for (const name of names) {
    const value = variables.get(name)!;
    checkVariable(name, value);
    parts.push(Buffer.from(`${name}=${value}\0`, 'latin1'));
  }
  const body = Buffer.concat(parts);
  // The list's terminating NUL must fit too.
  if (body.length + 1 > dataSize) throw new EnvironmentError('too_large', `the variables need ${body.length + 1} bytes; the environment holds ${dataSize}`);
  const data = Buffer.alloc(dataSize, 0);
  body.copy(data);
  return data;
}

/** One copy of `size` bytes. `flag` is required in the redundant layout. */
export function encodeCopy(variables: Variables, size: number, layout: Layout, flag: number | null = null): Buffer {
  checkSize(size, layout);
  const header = headerSize(layout);
  const data = encodeData(variables, size - header);
  const copy = Buffer.alloc(size);
  copy.writeUInt32LE(crc32(data), 0);
  if (layout === 'redundant') {
    if (flag === null || !Number.isInteger(flag) || flag < 0 || flag > 255) throw new RangeError(`flag must be a byte, got ${flag}`);
    copy[4] = flag;
  }
  data.copy(copy, header);
  return copy;
}

export function decodeCopy(bytes: Uint8Array, layout: Layout): DecodedCopy {
  const header = headerSize(layout);
  const flag = layout === 'redundant' && bytes.length > 4 ? bytes[4] : null;
  if (bytes.length < header + 2) return { valid: false, flag, variables: new Map() };
  const stored = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).readUInt32LE(0);
  const data = bytes.subarray(header);
  if (crc32(data) !== stored) return { valid: false, flag, variables: new Map() };
  return { valid: true, flag, variables: parseData(data) };
}

/** Whether flag `a` is newer than flag `b` in the incremental scheme (0 follows 255). */
export function flagIsNewer(a: number, b: number): boolean {
  if (a === 0 && b === 255) return true;
  if (a === 255 && b === 0) return false;
  return a > b;
}

/**
 * Which of two redundant copies is current: the valid one, or of two valid ones the newer flag
 * (copy 0 on a tie); copy 0 when neither is valid.
 */
export function currentCopy(copies: readonly [DecodedCopy, DecodedCopy]): 0 | 1 {
  const [a, b] = copies;
  if (a.valid && b.valid) return flagIsNewer(b.flag ?? 0, a.flag ?? 0) ? 1 : 0;
  if (b.valid) return 1;
  return 0;
}

/** The flag a write gives the copy it replaces: one past the current copy's. */
export function nextFlag(current: number | null): number {
  return ((current ?? 0) + 1) & 0xff;
}

/**
 * A flag that loses to `current`: the redundant write first stores the new data under this
 * flag, and only then writes the winning flag byte, so a power cut between the two leaves
 * the old copy current (the CRC does not cover the flag).
 */
export function losingFlag(current: number | null): number {
  return ((current ?? 0) - 1) & 0xff;
}
