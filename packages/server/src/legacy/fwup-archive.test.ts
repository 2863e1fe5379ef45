import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { firmwareKey, fwupArchive, zip } from '../../test/support/fwup';
import { verifyingKey } from './archive-signature';
import { removeStaleUploads } from './firmware-intake';
import { MAX_META_CONF_BYTES, readFwupArchive } from './fwup-archive';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-fwup-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(bytes: Buffer): [string, number] {
  const name = path.join(dir, `a${++n}.fw`);
  fs.writeFileSync(name, bytes);
  return [name, bytes.length];
}

const LIMITS = { maxEntries: 10_000 };
const read = (name: string, size: number, limits = LIMITS) => readFwupArchive(name, size, limits);

describe('readFwupArchive and verifyingKey', () => {
  const key = firmwareKey();
  const meta = { 'meta-product': 'p', 'meta-version': '1.0.0', 'meta-uuid': '3c5d2a4e-8f1b-4c6d-9e7f-0a1b2c3d4e5f' };

  it('reads meta.conf and its signature, which verifies only against the signing key', async () => {
    const got = await read(...file(fwupArchive({ key, meta })));
    expect(got.ok).toBe(true);
    if (!got.ok) return;
    expect(got.metaConf.toString()).toContain('meta-uuid="3c5d2a4e');
    expect(verifyingKey(got.metaConf, got.signature, [{ id: 'other', value: firmwareKey().value }, { id: 'mine', value: key.value }])?.id).toBe('mine');
    expect(verifyingKey(got.metaConf, got.signature, [{ id: 'other', value: firmwareKey().value }])).toBeNull();
    expect(verifyingKey(Buffer.concat([got.metaConf, Buffer.from(' ')]), got.signature, [{ id: 'mine', value: key.value }])).toBeNull();
    expect(verifyingKey(got.metaConf, null, [{ id: 'mine', value: key.value }])).toBeNull();
    expect(verifyingKey(got.metaConf, got.signature, [{ id: 'junk', value: 'bm90IGEga2V5' }])).toBeNull();
  });

  it('names what is wrong with a bad archive', async () => {
    expect(await read(...file(Buffer.alloc(0)))).toEqual({ ok: false, reason: 'empty' });
    expect(await read(...file(Buffer.from('PK but not really a zip')))).toEqual({ ok: false, reason: 'not_a_zip' });
    expect(await read(...file(fwupArchive({ key, meta, without: 'meta.conf' })))).toEqual({ ok: false, reason: 'missing_meta_conf' });
    expect(await read(...file(zip([{ name: 'meta.conf', data: Buffer.alloc(MAX_META_CONF_BYTES + 1, 0x20) }])))).toEqual({ ok: false, reason: 'meta_conf_too_large' });
    const withoutSignature = await read(...file(fwupArchive({ key, meta, without: 'meta.conf.ed25519' })));
    expect(withoutSignature.ok && withoutSignature.signature).toBeNull();
  });

  it('refuses an archive of 500,000 entries from its end record, in well under 2 seconds', async () => {
    const [name, size] = file(fwupArchive({ key, meta, emptyEntries: 500_000 }));
    const started = performance.now();
    expect(await read(name, size)).toEqual({ ok: false, reason: 'too_many_entries', max: 10_000 });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('takes its entry cap from the setting', async () => {
    const archive = file(fwupArchive({ key, meta, emptyEntries: 7 })); // 10 entries
    expect(await read(...archive, { maxEntries: 9 })).toEqual({ ok: false, reason: 'too_many_entries', max: 9 });
    expect((await read(...archive, { maxEntries: 10 })).ok).toBe(true);
  });

  it('stops reading a central directory larger than its entries could need', async () => {
    const longName = 'd/' + 'n'.repeat(60_000);
    const entries = Array.from({ length: 20 }, (_, i) => ({ name: `${longName}${i}`, data: Buffer.alloc(0) }));
    expect(await read(...file(zip([...entries, { name: 'meta.conf', data: Buffer.from('x') }])), { maxEntries: 1000 })).toEqual({ ok: false, reason: 'directory_too_large', max: 1000 * 1024 });
  });

  it('refuses a second meta.conf or signature, and an entry whose bytes fail their CRC-32', async () => {
    const second = { name: 'meta.conf', data: Buffer.from('meta-product="other"\n') };
    expect(await read(...file(fwupArchive({ key, meta, extra: [second] })))).toEqual({ ok: false, reason: 'duplicate_entry', entry: 'meta.conf' });
    const signature = { name: 'meta.conf.ed25519', data: Buffer.alloc(64) };
    expect(await read(...file(fwupArchive({ key, meta, extra: [signature] })))).toEqual({ ok: false, reason: 'duplicate_entry', entry: 'meta.conf.ed25519' });
    const archive = fwupArchive({ key, meta });
    const at = archive.indexOf('meta-version="1.0.0"') + 'meta-version="'.length;
    archive[at] = '9'.charCodeAt(0); // the bytes change, the CRC in the headers does not
    expect(await read(...file(archive))).toEqual({ ok: false, reason: 'crc_mismatch', entry: 'meta.conf' });
  });
});

describe('removeStaleUploads', () => {
  it('removes only upload temp files older than a day', async () => {
    const tmp = fs.mkdtempSync(path.join(dir, 'tmp-'));
    for (const name of ['firmware-old.upload', 'firmware-new.upload', 'other.txt']) fs.writeFileSync(path.join(tmp, name), 'x');
    const dayAgo = (Date.now() - 25 * 3600_000) / 1000;
    fs.utimesSync(path.join(tmp, 'firmware-old.upload'), dayAgo, dayAgo);
    fs.utimesSync(path.join(tmp, 'other.txt'), dayAgo, dayAgo);
    await removeStaleUploads(tmp);
    expect(fs.readdirSync(tmp).sort()).toEqual(['firmware-new.upload', 'other.txt']);
    await removeStaleUploads(path.join(dir, 'missing'));
  });

  it("removes at once the files of processes that no longer run, and of this process's id", async () => {
    const tmp = fs.mkdtempSync(path.join(dir, 'tmp-'));
    // A process that ran and exited: its id is free (until the system reuses it).
    const exited = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const names = { dead: `firmware-${exited}-${uuid}.upload`, own: `firmware-${process.pid}-${uuid}.upload`, live: `firmware-${process.ppid}-${uuid}.upload` };
    for (const name of Object.values(names)) fs.writeFileSync(path.join(tmp, name), 'x');
    await removeStaleUploads(tmp);
    expect(fs.readdirSync(tmp)).toEqual([names.live]);
  });
});
