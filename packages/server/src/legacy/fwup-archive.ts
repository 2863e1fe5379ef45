/**
 * Reads what the legacy API needs from a fwup archive stored in a file: `meta.conf` and its
 * detached Ed25519 signature `meta.conf.ed25519` (64 raw bytes). A fwup archive is a zip; yauzl
 * reads its central directory from the end of the file and opens only those two entries, so an
 * archive of any size costs two small reads, never its whole body in memory.
 */
import yauzl from 'yauzl';

/** meta.conf is a few kilobytes; anything past this is not an archive fwup made. */
export const MAX_META_CONF_BYTES = 64 * 1024;
const SIGNATURE_BYTES = 64;

export type ArchiveProblem = 'empty' | 'not_a_zip' | 'missing_meta_conf' | 'meta_conf_too_large';

export type ArchiveRead = { ok: true; metaConf: Buffer; signature: Buffer | null } | { ok: false; reason: ArchiveProblem };

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => yauzl.open(path, { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true }, (error, zip) => (error ? reject(error) : resolve(zip!))));
}

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
      stream!.on('end', () => resolve(Buffer.concat(chunks)));
    }),
  );
}

/** The two entries, or the first problem. `size` is the file's size (0 is its own problem). */
export async function readFwupArchive(path: string, size: number): Promise<ArchiveRead> {
  if (size === 0) return { ok: false, reason: 'empty' };
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(path);
  } catch {
    return { ok: false, reason: 'not_a_zip' };
  }
  try {
    const wanted = new Map<string, yauzl.Entry>();
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName === 'meta.conf' || entry.fileName === 'meta.conf.ed25519') wanted.set(entry.fileName, entry);
        zip.readEntry();
      });
      zip.on('end', resolve);
      zip.on('error', reject);
      zip.readEntry();
    });
    const metaEntry = wanted.get('meta.conf');
    if (!metaEntry) return { ok: false, reason: 'missing_meta_conf' };
    const metaConf = await readEntry(zip, metaEntry, MAX_META_CONF_BYTES);
    if (metaConf === null) return { ok: false, reason: 'meta_conf_too_large' };
    const signatureEntry = wanted.get('meta.conf.ed25519');
    const signature = signatureEntry ? await readEntry(zip, signatureEntry, SIGNATURE_BYTES) : null;
    return { ok: true, metaConf, signature };
  } catch {
    // A central directory that lies about its entries (truncated, corrupt): not a usable zip.
    return { ok: false, reason: 'not_a_zip' };
  } finally {
    zip.close();
  }
}
