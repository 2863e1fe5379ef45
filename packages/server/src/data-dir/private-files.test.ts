import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makePrivate } from './private-files';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-private-'));
  made.push(dir);
  return dir;
};
const modeOf = (file: string) => fs.lstatSync(file).mode & 0o777;

describe('makePrivate', () => {
  it('makes directories 0700 and takes group and other bits from files, keeping the owner bits', () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, 'a/b'), { recursive: true });
    fs.writeFileSync(path.join(root, 'a/b/data'), 'x', { mode: 0o666 });
    fs.writeFileSync(path.join(root, 'a/tool'), 'x', { mode: 0o755 });
    fs.chmodSync(path.join(root, 'a/b/data'), 0o666);
    fs.chmodSync(root, 0o755);
    const result = makePrivate(root);
    expect([modeOf(root), modeOf(path.join(root, 'a')), modeOf(path.join(root, 'a/b'))]).toEqual([0o700, 0o700, 0o700]);
    expect([modeOf(path.join(root, 'a/b/data')), modeOf(path.join(root, 'a/tool'))]).toEqual([0o600, 0o700]);
    expect(result.failed).toEqual([]);
    expect(makePrivate(root).changed).toBe(0);
  });

  it('neither changes nor follows symbolic links, and a missing root is nothing to do', () => {
    const root = tempDir();
    const outside = tempDir();
    fs.chmodSync(outside, 0o755);
    fs.writeFileSync(path.join(outside, 'shared'), 'x');
    fs.chmodSync(path.join(outside, 'shared'), 0o644);
    fs.symlinkSync(outside, path.join(root, 'link'));
    makePrivate(root);
    expect([modeOf(outside), modeOf(path.join(outside, 'shared'))]).toEqual([0o755, 0o644]);
    expect(makePrivate(path.join(root, 'missing'))).toEqual({ changed: 0, failed: [] });
  });
});
