/**
 * Real fwup-format archives for the legacy API's tests: a zip whose first entries are
 * `meta.conf.ed25519` (the 64-byte Ed25519 signature of meta.conf) and `meta.conf`, then the
 * image data, as fwup writes them. The zip is written here (stored entries, CRC-32 from zlib),
 * so the tests do not depend on the reader under test to build their input.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { ED25519_SPKI_PREFIX } from '../../src/signing-keys/ed25519';
import { formatMetaConf, type MetaKey } from '../../src/legacy/meta-conf';

export interface ZipEntry {
  name: string;
  data: Buffer;
}

/** A zip of stored (uncompressed) entries with a central directory. */
export function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const crc = crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // utf-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, entry.data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(entry.data.length, 20);
    central.writeUInt32LE(entry.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + entry.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export interface FirmwareKey {
  privateKey: KeyObject;
  /** The signing key `value` the admin API takes: base64 of the raw 32-byte public key. */
  value: string;
}

export function firmwareKey(): FirmwareKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(ED25519_SPKI_PREFIX.length);
  return { privateKey, value: Buffer.from(raw).toString('base64') };
}

export interface ArchiveOptions {
  meta: Partial<Record<MetaKey, string>>;
  key: FirmwareKey;
  /** Replaces meta.conf after signing (a tampered archive). */
  tamper?: (metaConf: string) => string;
  /** Leave out meta.conf, or its signature. */
  without?: 'meta.conf' | 'meta.conf.ed25519';
  imageBytes?: number;
}

export function fwupArchive(options: ArchiveOptions): Buffer {
  const metaConf = `${formatMetaConf(options.meta)}file-resource rootfs.img {\n  length = ${options.imageBytes ?? 4096}\n}\n`;
  const signature = sign(null, Buffer.from(metaConf), options.key.privateKey);
  const shipped = options.tamper ? options.tamper(metaConf) : metaConf;
  const entries: ZipEntry[] = [];
  if (options.without !== 'meta.conf.ed25519') entries.push({ name: 'meta.conf.ed25519', data: signature });
  if (options.without !== 'meta.conf') entries.push({ name: 'meta.conf', data: Buffer.from(shipped) });
  entries.push({ name: 'data/rootfs.img', data: Buffer.alloc(options.imageBytes ?? 4096, 0xa5) });
  return zip(entries);
}
