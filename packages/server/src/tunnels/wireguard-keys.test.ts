import { describe, expect, it } from 'vitest';
import { generateWireguardKeyPair, isWireguardKey, wireguardPublicKeyOf } from './wireguard-keys';

describe('WireGuard keys', () => {
  it('makes X25519 pairs as base64 of 32 raw bytes', () => {
    const pair = generateWireguardKeyPair();
    expect(isWireguardKey(pair.privateKey)).toBe(true);
    expect(isWireguardKey(pair.publicKey)).toBe(true);
    expect(wireguardPublicKeyOf(pair.privateKey)).toBe(pair.publicKey);
    expect(generateWireguardKeyPair().privateKey).not.toBe(pair.privateKey);
  });

  it('matches the RFC 7748 test vector', () => {
    const alice = Buffer.from('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a', 'hex').toString('base64');
    const alicePublic = Buffer.from('8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a', 'hex').toString('base64');
    expect(wireguardPublicKeyOf(alice)).toBe(alicePublic);
  });

  it('accepts only canonical base64 of exactly 32 bytes', () => {
    const key = generateWireguardKeyPair().publicKey;
    for (const bad of ['', 'abc', key.slice(0, 43), `${key}=`, Buffer.alloc(31).toString('base64'), Buffer.alloc(33).toString('base64'), key.replace(/=$/, ''), `${key.slice(0, 42)}B=`, 42]) {
      expect(isWireguardKey(bad), String(bad)).toBe(false);
    }
  });
});
