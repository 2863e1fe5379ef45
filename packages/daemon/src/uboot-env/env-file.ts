/**
 * Reading and writing the U-Boot environment where `EnvLocations` says it is (a file or a block
 * device), with the codec in codec.ts. With two copies a power cut at any moment leaves a
 * readable environment: the new variables go to the copy that is not current, under a flag that
 * still loses, then fsync; only then the winning flag byte, then fsync. With one copy the write is
 * in place (U-Boot's single layout has no safe alternative). Raw MTD devices (`/dev/mtd*`) need
 * erase-before-write and NAND's flag scheme: refused with `unsupported_device` rather than guessed.
 * Writers in this process are serialised; other processes (fw_setenv run by hand) are not locked
 * out, as libubootenv's own lock file is advisory. Docs page: uboot-environment/overview.md.
 */
import fs from 'node:fs/promises';
import { currentCopy, decodeCopy, encodeCopy, losingFlag, nextFlag, type DecodedCopy } from './codec.ts';
import type { EnvCopyLocation, EnvLocations } from './locations.ts';

export interface EnvSnapshot {
  variables: Map<string, string>;
  /** Whether any copy was valid; false means the environment read as empty. */
  valid: boolean;
  /** The copy that was read (0 or 1) and its flag (null in the single layout). */
  current: 0 | 1;
  flag: number | null;
}

/** Variables to set; null removes one (as `fw_setenv name` with no value does). */
export type EnvChanges = Record<string, string | null>;

export class UnsupportedDeviceError extends Error {
  readonly code = 'unsupported_device';
  constructor(device: string) {
    super(`${device}: raw MTD devices are not supported for the U-Boot environment`);
    this.name = 'UnsupportedDeviceError';
  }
}

async function readCopy(location: EnvCopyLocation): Promise<Buffer> {
  const handle = await fs.open(location.device, 'r');
  try {
    const buffer = Buffer.alloc(location.size);
    // A short read (a file smaller than offset + size) leaves zeros, which fail the CRC.
    await handle.read(buffer, 0, location.size, location.offset);
    return buffer;
  } finally {
    await handle.close();
  }
}

async function writeAt(device: string, bytes: Buffer, position: number): Promise<void> {
  const handle = await fs.open(device, 'r+');
  try {
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, position + written);
      written += bytesWritten;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export interface UbootEnvironment {
  readonly locations: EnvLocations;
  read(): Promise<EnvSnapshot>;
  /** Reads, applies `changes`, writes safely, and answers the variables now stored. */
  update(changes: EnvChanges): Promise<Map<string, string>>;
}

export function openEnvironment(locations: EnvLocations): UbootEnvironment {
  for (const copy of locations.copies) if (/^\/dev\/mtd/.test(copy.device)) throw new UnsupportedDeviceError(copy.device);
  const { layout, size, copies } = locations;
  let queue: Promise<unknown> = Promise.resolve();

  async function read(): Promise<EnvSnapshot> {
    if (layout === 'single') {
      const copy = decodeCopy(await readCopy(copies[0]), 'single');
      return { variables: copy.variables, valid: copy.valid, current: 0, flag: null };
    }
    const decoded = [decodeCopy(await readCopy(copies[0]), 'redundant'), decodeCopy(await readCopy(copies[1]), 'redundant')] as [DecodedCopy, DecodedCopy];
    const current = currentCopy(decoded);
    const chosen = decoded[current];
    return { variables: chosen.variables, valid: chosen.valid, current, flag: chosen.flag };
  }

  async function write(before: EnvSnapshot, variables: Map<string, string>): Promise<void> {
    if (layout === 'single') {
      await writeAt(copies[0].device, encodeCopy(variables, size, 'single'), copies[0].offset);
      return;
    }
    const target = copies[before.current === 0 ? 1 : 0];
    // Step 1: the data under a flag that loses to the current copy. Step 2: the flag that wins.
    await writeAt(target.device, encodeCopy(variables, size, 'redundant', losingFlag(before.flag)), target.offset);
    await writeAt(target.device, Buffer.of(nextFlag(before.flag)), target.offset + 4);
  }

  async function update(changes: EnvChanges): Promise<Map<string, string>> {
    const before = await read();
    const variables = new Map(before.variables);
    for (const [name, value] of Object.entries(changes)) {
      if (value === null) variables.delete(name);
      else variables.set(name, value);
    }
    // encodeCopy validates names, values and size before anything is written.
    await write(before, variables);
    const after = await read();
    if (!after.valid) throw new Error('the U-Boot environment did not read back after writing it');
    return after.variables;
  }

  return {
    locations,
    read: () => {
      const result = queue.then(read);
      queue = result.catch(() => undefined);
      return result;
    },
    update: (changes) => {
      const result = queue.then(() => update(changes));
      queue = result.catch(() => undefined);
      return result;
    },
  };
}
