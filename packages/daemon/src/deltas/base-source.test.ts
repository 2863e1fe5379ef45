import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DaemonConfig } from '../config/types.ts';
import { baseCandidates, findBase, keepBases, keptBasePath } from './base-source.ts';
import { fileInstaller } from '../installers/file.ts';
import type { CanopyMetadata } from '../installers/metadata.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'base-source-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const config = { state_dir: path.join(dir, 'state') } as DaemonConfig;
const installed = randomBytes(10_000);
const installedPath = path.join(dir, 'app.bin');
fs.writeFileSync(installedPath, installed);
const metadata = { installer: 'file', reboot_required: false, file: { path: installedPath, mode: 0o644 } } as CanopyMetadata;

describe('delta bases', () => {
  it('finds the installed file by its hash, kept copy first, and nothing that hashes otherwise', async () => {
    const candidates = baseCandidates(config, metadata, sha(installed), fileInstaller);
    expect(candidates.map((c) => c.source)).toEqual(['kept_copy', 'installed']);
    expect((await findBase(candidates, sha(installed))).base).toEqual({ path: installedPath, source: 'installed' });
    expect(await findBase(candidates, sha(randomBytes(8)))).toEqual({ base: null, deferred: false });
  });

  it('hashes only the base size of a longer candidate (a slot holding the image and more)', async () => {
    const slot = path.join(dir, 'slot');
    fs.writeFileSync(slot, Buffer.concat([installed, randomBytes(4096)]));
    const candidates = [{ path: slot, source: 'installed' as const }];
    expect((await findBase(candidates, sha(installed))).base).toBeNull();
    expect((await findBase(candidates, sha(installed), installed.length)).base?.path).toBe(slot);
  });

  it('keeps a copy of each installed binary and drops copies of what is no longer installed', async () => {
    const next = randomBytes(5000);
    const nextPath = path.join(dir, 'next.bin');
    fs.writeFileSync(nextPath, next);
    await keepBases(config, [{ file: installedPath, hash: sha(installed) }]);
    await keepBases(config, [{ file: nextPath, hash: sha(next) }]);
    expect(fs.readdirSync(path.join(config.state_dir, 'delta-bases'))).toEqual([`${sha(next)}.bin`]);
    const found = await findBase(baseCandidates(config, { installer: 'rauc', reboot_required: true } as CanopyMetadata, sha(next)), sha(next));
    expect(found.base).toEqual({ path: keptBasePath(config, sha(next)), source: 'kept_copy' });
  });
});
