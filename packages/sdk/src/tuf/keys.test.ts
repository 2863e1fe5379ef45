import { Metadata, Timestamp, MetaFile } from '@tufjs/models';
import { describe, expect, it } from 'vitest';
import { generateTufKey, tufKeyFromPrivatePem, tufSigner } from './keys';

describe('TUF keys', () => {
  it('signs metadata that its key verifies, and the keyid survives a reload from PEM', () => {
    const pair = generateTufKey();
    expect(tufKeyFromPrivatePem(pair.privatePem).key.keyID).toBe(pair.key.keyID);
    expect(pair.key.keyID).toMatch(/^[0-9a-f]{64}$/);
    const meta = new Metadata(new Timestamp({ version: 1, specVersion: '1.0.31', expires: '2030-01-01T00:00:00Z', snapshotMeta: new MetaFile({ version: 1 }) }));
    meta.sign(tufSigner(pair));
    expect(() => pair.key.verifySignature(meta)).not.toThrow();
    expect(() => generateTufKey().key.verifySignature(meta)).toThrow();
  });
});
