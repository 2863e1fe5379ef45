/**
 * Reads what the legacy API needs from a fwup archive stored in a file: `meta.conf` and its
 * detached Ed25519 signature `meta.conf.ed25519` (64 raw bytes). A fwup archive is a zip; yauzl
 * reads its central directory from the end of the file and opens only those two entries, so an
 * archive of any size costs two small reads, never its whole body in memory.
 *
 * The work is bounded before it starts: the entry count (from the end record, checked before a
 * single entry is read) and the central directory's bytes are capped, and only two entries of at
 * most 64 KiB are ever inflated. As fwup does, two entries named meta.conf (or two signatures)
 * and an entry whose bytes fail its CRC-32 are refused: a reader taking the other one would see
 * another meta.conf than the one whose signature was checked.
 */
import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';

/** meta.conf is a few kilobytes; anything past this is not an archive fwup made. */
export const MAX_META_CONF_BYTES = 64 * 1024;
const SIGNATURE_BYTES = 64;
/** Central directory bytes read at most: a 46-byte record and a name per entry, with room to spare. */
const MAX_DIRECTORY_BYTES_PER_ENTRY = 1024;

export type ArchiveProblem =
  | 'empty'
  | 'not_a_zip'
  | 'missing_meta_conf'
  | 'meta_conf_too_large'
  | 'too_many_entries'
  | 'directory_too_large'
  | 'duplicate_entry'
  | 'crc_mismatch';

export interface ArchiveLimits {
  /** config.firmwareMaxEntries (CANOPY_FIRMWARE_MAX_ENTRIES); fwup images hold a few dozen. */
  maxEntries: number;
}

export type ArchiveRead =
  | { ok: true; metaConf: Buffer; signature: Buffer | null }
  | { ok: false; reason: ArchiveProblem; entry?: string; max?: number };

/** An archive's problem found while walking its directory; readFwupArchive answers it. */
class Refused extends Error {
  constructor(readonly read: ArchiveRead & { ok: false }) {
    super(read.reason);
  }
}

const WANTED = new Set(['meta.conf', 'meta.conf.ed25519']);

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => yauzl.open(path, { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true }, (error, zip) => (error ? reject(error) : resolve(zip!))));
}

/** The entry's bytes, or null past `limit`; a CRC-32 that does not match is refused. */
function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, limit: number): Promise<Buffer | null> {
  if (entry.uncompressedSize > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, (error, stream) => {
      if (error) return reject(error);
      const chunks: Buffer[] = [];
      let size = 0;
      stream!.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) stream!.destroy(new Error('entry larger than declared'));
        else chunks.push(chunk);
      });
      stream!.on('error', reject);
      stream!.on('end', () => {
        const bytes = Buffer.concat(chunks);
        if (crc32(bytes) !== entry.crc32) reject(new Refused({ ok: false, reason: 'crc_mismatch', entry: entry.fileName }));
        else resolve(bytes);
      });
    }),
  );
}

/** meta.conf and its signature from the directory, walked within the limits. */
function wantedEntries(zip: yauzl.ZipFile, limits: ArchiveLimits): Promise<Map<string, yauzl.Entry>> {
  const wanted = new Map<string, yauzl.Entry>();
  // yauzl's cursor into the central directory (the offset of the next record to read).
  const cursor = () => (zip as unknown as { readEntryCursor: number }).readEntryCursor;
  const start = cursor();
  const maxDirectoryBytes = limits.maxEntries * MAX_DIRECTORY_BYTES_PER_ENTRY;
  return new Promise((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (WANTED.has(entry.fileName)) {
        if (wanted.has(entry.fileName)) return reject(new Refused({ ok: false, reason: 'duplicate_entry', entry: entry.fileName }));
        wanted.set(entry.fileName, entry);
      }
      if (cursor() - start > maxDirectoryBytes) return reject(new Refused({ ok: false, reason: 'directory_too_large', max: maxDirectoryBytes }));
      zip.readEntry();
    });
    zip.on('end', () => resolve(wanted));
    zip.on('error', reject);
    zip.readEntry();
  });
}

/** The two entries, or the first problem. `size` is the file's size (0 is its own problem). */
export async function readFwupArchive(path: string, size: number, limits: ArchiveLimits): Promise<ArchiveRead> {
  if (size === 0) return { ok: false, reason: 'empty' };
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(path);
  } catch {
    return { ok: false, reason: 'not_a_zip' };
  }
  try {
    // The end record's count, known before any entry is read: a huge directory costs nothing.
    if (zip.entryCount > limits.maxEntries) return { ok: false, reason: 'too_many_entries', max: limits.maxEntries };
    const wanted = await wantedEntries(zip, limits);
    const metaEntry = wanted.get('meta.conf');
    if (!metaEntry) return { ok: false, reason: 'missing_meta_conf' };
    const metaConf = await readEntry(zip, metaEntry, MAX_META_CONF_BYTES);
    if (metaConf === null) return { ok: false, reason: 'meta_conf_too_large' };
    const signatureEntry = wanted.get('meta.conf.ed25519');
    const signature = signatureEntry ? await readEntry(zip, signatureEntry, SIGNATURE_BYTES) : null;
    return { ok: true, metaConf, signature };
  } catch (error) {
    if (error instanceof Refused) return error.read;
    // A central directory that lies about its entries (truncated, corrupt): not a usable zip.
    return { ok: false, reason: 'not_a_zip' };
  } finally {
    zip.close();
  }
}
