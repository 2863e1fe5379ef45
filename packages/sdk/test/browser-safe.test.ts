/**
 * The browser's halves of uploading and signing (blob-plan.ts, webcrypto-signing.ts) give what
 * the Node halves give for the same bytes and key, and @canopy/sdk/browser imports no Node module.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSigningKeyPair, MIN_PART_SIZE, planFile, signBinaryHash, verifyBinarySignature } from '../src/index';
import { planBlob, readBlobPart, signerFromPrivateKeyPem, SigningKeyFileError, webCryptoHasEd25519 } from '../src/browser';

describe('planBlob', () => {
  it('plans a Blob exactly as planFile plans the same bytes', async () => {
    const bytes = randomBytes(MIN_PART_SIZE * 2 + 4321);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'blob-plan-')), 'f.bin');
    fs.writeFileSync(file, bytes);
    const seen: number[] = [];
    const plan = await planBlob(new Blob([bytes]), { partSize: MIN_PART_SIZE, onProgress: (n) => seen.push(n) });
    const { path: _path, ...expected } = await planFile(file, MIN_PART_SIZE);
    expect(plan).toEqual(expected);
    expect(seen.at(-1)).toBe(bytes.length);
    const last = plan.parts[2];
    expect(Buffer.from(await readBlobPart(new Blob([bytes]), last))).toEqual(bytes.subarray(last.offset));
  });

  it('plans an empty Blob as one empty part', async () => {
    const plan = await planBlob(new Blob([]));
    expect(plan.parts).toEqual([{ index: 1, offset: 0, size: 0, hash: createHash('sha256').digest('hex'), checksumBase64: createHash('sha256').digest('base64') }]);
  });
});

describe('signerFromPrivateKeyPem (WebCrypto)', () => {
  it('signs as signBinaryHash does and names the public key the API stores', async () => {
    expect(await webCryptoHasEd25519()).toBe(true);
    const pair = generateSigningKeyPair();
    const hash = createHash('sha256').update('firmware').digest('hex');
    const signer = await signerFromPrivateKeyPem(pair.privateKeyPem);
    expect(signer.publicKeyValue).toBe(pair.publicKeyValue);
    const signature = await signer.signHash(hash.toUpperCase());
    // Ed25519 is deterministic: the same key and message give the same signature.
    expect(signature).toBe(signBinaryHash(pair.privateKeyPem, hash));
    expect(verifyBinarySignature(pair.publicKeyValue, hash, signature)).toBe(true);
  });

  it('refuses a file that is not an Ed25519 PKCS#8 key', async () => {
    await expect(signerFromPrivateKeyPem(pair().publicKeyPem)).rejects.toBeInstanceOf(SigningKeyFileError);
    const ecKey = (await import('node:crypto')).generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    await expect(signerFromPrivateKeyPem(ecKey)).rejects.toThrow(/not an Ed25519 private key/);
  });
});

describe('@canopy/sdk/browser', () => {
  it('imports no Node module, directly or through its imports', () => {
    const src = path.resolve(__dirname, '../src');
    const seen = new Set<string>();
    const visit = (file: string) => {
      // Generated type declarations (.d.ts) hold types only.
      if (!fs.existsSync(file)) file = file.replace(/\.ts$/, '.d.ts');
      if (seen.has(file)) return;
      seen.add(file);
      const text = fs.readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/from 'node:|from '(fs|path|crypto|undici)'/);
      for (const [, rel] of text.matchAll(/from '(\.[^']+)'/g)) visit(path.resolve(path.dirname(file), rel.endsWith('.ts') ? rel : `${rel}.ts`));
    };
    visit(path.join(src, 'browser.ts'));
    expect(seen.size).toBeGreaterThan(8);
  });
});

const pair = () => generateSigningKeyPair();
