import { describe, expect, it } from 'vitest';
import { firstRecordState } from './first-record';

const header = (...bytes: number[]) => Uint8Array.from(bytes);

describe('firstRecordState', () => {
  it('waits for the header, then for the length it announces', () => {
    expect(firstRecordState(header(), 0)).toBe('partial');
    expect(firstRecordState(header(0x16), 1)).toBe('partial');
    expect(firstRecordState(header(0x16, 0x03, 0x01, 0x01), 4)).toBe('partial');
    expect(firstRecordState(header(0x16, 0x03, 0x01, 0x01, 0x00), 5)).toBe('partial');
    expect(firstRecordState(header(0x16, 0x03, 0x01, 0x01, 0x00), 5 + 255)).toBe('partial');
    expect(firstRecordState(header(0x16, 0x03, 0x01, 0x01, 0x00), 5 + 256)).toBe('complete');
    expect(firstRecordState(header(0x16, 0x03, 0x01, 0x01, 0x00), 5 + 400)).toBe('complete');
  });

  it('refuses what cannot be a TLS handshake from its first bytes', () => {
    expect(firstRecordState(header(0x47), 1)).toBe('not-tls'); // "GET ..."
    expect(firstRecordState(header(0x16, 0x47), 2)).toBe('not-tls');
    expect(firstRecordState(header(0x80, 0x2e), 2)).toBe('not-tls'); // an SSLv2 hello
    expect(firstRecordState(header(0x16, 0x03, 0x01, 0x00, 0x00), 5)).toBe('not-tls');
    expect(firstRecordState(header(0x16, 0x03, 0x01, 0xff, 0xff), 5)).toBe('not-tls'); // longer than TLS allows
    expect(firstRecordState(header(0x16, 0x03, 0x01, 0x48, 0x00), 5)).toBe('partial'); // 2^14 + 2048 is allowed
  });
});
