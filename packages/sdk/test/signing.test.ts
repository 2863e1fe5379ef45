import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { choosePartSize, generateSigningKeyPair, keyPairFromPrivatePem, MIN_PART_SIZE, planFile, signBinaryHash, verifyBinarySignature } from '../src/index';

describe('Ed25519 binary signatures', () => {
  it('signs the ASCII lowercase hex hash; verifies with the base64 value or the PEM', () => {
    const pair = generateSigningKeyPair();
    expect(Buffer.from(pair.publicKeyValue, 'base64')).toHaveLength(32);
    expect(pair.keyid).toBe(createHash('sha256').update(Buffer.from(pair.publicKeyValue, 'base64')).digest('hex'));
    const hash = createHash('sha256').update('firmware').digest('hex');
    const signature = signBinaryHash(pair.privateKeyPem, hash.toUpperCase());
    expect(signature).toMatch(/^[0-9a-f]{128}$/);
    expect(verifyBinarySignature(pair.publicKeyValue, hash, signature)).toBe(true);
    expect(verifyBinarySignature(pair.publicKeyPem, hash, signature)).toBe(true);
    expect(verifyBinarySignature(generateSigningKeyPair().publicKeyValue, hash, signature)).toBe(false);
    expect(keyPairFromPrivatePem(pair.privateKeyPem).publicKeyValue).toBe(pair.publicKeyValue);
  });
});

describe('part plan', () => {
  it('cuts a file into parts with per-part and whole-file SHA-256 in one pass', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'plan-')), 'f.bin');
    const bytes = Buffer.alloc(MIN_PART_SIZE * 2 + 123, 7);
    fs.writeFileSync(file, bytes);
    const plan = await planFile(file, MIN_PART_SIZE);
    expect(plan.hash).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(plan.parts.map((p) => p.size)).toEqual([MIN_PART_SIZE, MIN_PART_SIZE, 123]);
    expect(plan.parts[2].hash).toBe(createHash('sha256').update(bytes.subarray(MIN_PART_SIZE * 2)).digest('hex'));
    expect(plan.parts.map((p) => p.index)).toEqual([1, 2, 3]);
  });

  it('grows the part size rather than exceed 10,000 parts', () => {
    expect(choosePartSize(10, MIN_PART_SIZE)).toBe(MIN_PART_SIZE);
    expect(choosePartSize(MIN_PART_SIZE * 20_000, MIN_PART_SIZE)).toBe(MIN_PART_SIZE * 2);
    expect(() => choosePartSize(10, 1024)).toThrow(RangeError);
  });
});
