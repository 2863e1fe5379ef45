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

describe('readFwupArchive and verifyingKey', () => {
  const key = firmwareKey();
  const meta = { 'meta-product': 'p', 'meta-version': '1.0.0', 'meta-uuid': '3c5d2a4e-8f1b-4c6d-9e7f-0a1b2c3d4e5f' };

  it('reads meta.conf and its signature, which verifies only against the signing key', async () => {
    const read = await readFwupArchive(...file(fwupArchive({ key, meta })));
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.metaConf.toString()).toContain('meta-uuid="3c5d2a4e');
    expect(verifyingKey(read.metaConf, read.signature, [{ id: 'other', value: firmwareKey().value }, { id: 'mine', value: key.value }])?.id).toBe('mine');
    expect(verifyingKey(read.metaConf, read.signature, [{ id: 'other', value: firmwareKey().value }])).toBeNull();
    expect(verifyingKey(Buffer.concat([read.metaConf, Buffer.from(' ')]), read.signature, [{ id: 'mine', value: key.value }])).toBeNull();
    expect(verifyingKey(read.metaConf, null, [{ id: 'mine', value: key.value }])).toBeNull();
    expect(verifyingKey(read.metaConf, read.signature, [{ id: 'junk', value: 'bm90IGEga2V5' }])).toBeNull();
  });

  it('names what is wrong with a bad archive', async () => {
    expect(await readFwupArchive(...file(Buffer.alloc(0)))).toEqual({ ok: false, reason: 'empty' });
    expect(await readFwupArchive(...file(Buffer.from('PK but not really a zip')))).toEqual({ ok: false, reason: 'not_a_zip' });
    expect(await readFwupArchive(...file(fwupArchive({ key, meta, without: 'meta.conf' })))).toEqual({ ok: false, reason: 'missing_meta_conf' });
    expect(await readFwupArchive(...file(zip([{ name: 'meta.conf', data: Buffer.alloc(MAX_META_CONF_BYTES + 1, 0x20) }])))).toEqual({ ok: false, reason: 'meta_conf_too_large' });
    const withoutSignature = await readFwupArchive(...file(fwupArchive({ key, meta, without: 'meta.conf.ed25519' })));
    expect(withoutSignature.ok && withoutSignature.signature).toBeNull();
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
