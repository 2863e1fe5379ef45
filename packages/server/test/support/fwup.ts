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

const LOCAL_HEADER = 30;
const CENTRAL_HEADER = 46;
const END_RECORD = 22;
const ZIP64_END = 56 + 20; // the zip64 end record and its locator

/**
 * A zip of stored (uncompressed) entries with a central directory, written into one buffer (a
 * test's 500,000 entries take a fraction of a second). Past 65,534 entries the count goes in a
 * zip64 end record, as zip tools write it.
 */
export function zip(entries: ZipEntry[]): Buffer {
  const names = entries.map((entry) => Buffer.from(entry.name, 'utf8'));
  const localBytes = entries.reduce((sum, entry, i) => sum + LOCAL_HEADER + names[i].length + entry.data.length, 0);
  const directoryBytes = names.reduce((sum, name) => sum + CENTRAL_HEADER + name.length, 0);
  const zip64 = entries.length >= 0xffff;
  const out = Buffer.alloc(localBytes + directoryBytes + (zip64 ? ZIP64_END : 0) + END_RECORD);
  let local = 0;
  let central = localBytes;
  for (const [i, entry] of entries.entries()) {
    const name = names[i];
    const crc = crc32(entry.data);
    out.writeUInt32LE(0x04034b50, local);
    out.writeUInt16LE(20, local + 4);
    out.writeUInt16LE(0x0800, local + 6); // utf-8 names
    out.writeUInt16LE(0, local + 8); // stored
    out.writeUInt32LE(crc, local + 14);
    out.writeUInt32LE(entry.data.length, local + 18);
    out.writeUInt32LE(entry.data.length, local + 22);
    out.writeUInt16LE(name.length, local + 26);
    name.copy(out, local + LOCAL_HEADER);
    entry.data.copy(out, local + LOCAL_HEADER + name.length);
    out.writeUInt32LE(0x02014b50, central);
    out.writeUInt16LE(20, central + 4);
    out.writeUInt16LE(20, central + 6);
    out.writeUInt16LE(0x0800, central + 8);
    out.writeUInt32LE(crc, central + 16);
    out.writeUInt32LE(entry.data.length, central + 20);
    out.writeUInt32LE(entry.data.length, central + 24);
    out.writeUInt16LE(name.length, central + 28);
    out.writeUInt32LE(local, central + 42);
    name.copy(out, central + CENTRAL_HEADER);
    local += LOCAL_HEADER + name.length + entry.data.length;
    central += CENTRAL_HEADER + name.length;
  }
  let end = central;
  if (zip64) {
    out.writeUInt32LE(0x06064b50, end);
    out.writeBigUInt64LE(44n, end + 4); // the record's size after this field
    out.writeUInt16LE(45, end + 12);
    out.writeUInt16LE(45, end + 14);
    out.writeBigUInt64LE(BigInt(entries.length), end + 24);
    out.writeBigUInt64LE(BigInt(entries.length), end + 32);
    out.writeBigUInt64LE(BigInt(directoryBytes), end + 40);
    out.writeBigUInt64LE(BigInt(localBytes), end + 48);
    out.writeUInt32LE(0x07064b50, end + 56);
    out.writeBigUInt64LE(BigInt(central), end + 64);
    out.writeUInt32LE(1, end + 72);
    end += ZIP64_END;
  }
  out.writeUInt32LE(0x06054b50, end);
  out.writeUInt16LE(zip64 ? 0xffff : entries.length, end + 8);
  out.writeUInt16LE(zip64 ? 0xffff : entries.length, end + 10);
  out.writeUInt32LE(directoryBytes, end + 12);
  out.writeUInt32LE(localBytes, end + 16);
  return out;
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
  /** More entries after the image (a second meta.conf, say). */
  extra?: ZipEntry[];
  /** This many more empty entries at the end (an archive of very many entries). */
  emptyEntries?: number;
}

export function fwupArchive(options: ArchiveOptions): Buffer {
  const metaConf = `${formatMetaConf(options.meta)}file-resource rootfs.img {\n  length = ${options.imageBytes ?? 4096}\n}\n`;
  const signature = sign(null, Buffer.from(metaConf), options.key.privateKey);
  const shipped = options.tamper ? options.tamper(metaConf) : metaConf;
  const entries: ZipEntry[] = [];
  if (options.without !== 'meta.conf.ed25519') entries.push({ name: 'meta.conf.ed25519', data: signature });
  if (options.without !== 'meta.conf') entries.push({ name: 'meta.conf', data: Buffer.from(shipped) });
  entries.push({ name: 'data/rootfs.img', data: Buffer.alloc(options.imageBytes ?? 4096, 0xa5) });
  entries.push(...(options.extra ?? []));
  const empty = Buffer.alloc(0);
  for (let i = 0; i < (options.emptyEntries ?? 0); i++) entries.push({ name: `data/${i}`, data: empty });
  return zip(entries);
}
