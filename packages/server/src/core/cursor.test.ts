import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor';

const timestamp = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
  .chain((d) => fc.integer({ min: 0, max: 999_999 }).map((micros) => `${d.toISOString().slice(0, 19).replace('T', ' ')}.${String(micros).padStart(6, '0')}+00`));

describe('keyset cursor', () => {
  it('decodes what it encodes', () => {
    fc.assert(
      fc.property(timestamp, fc.uuid().map((u) => u.toLowerCase()), (insertedAt, id) => {
        expect(decodeCursor(encodeCursor({ insertedAt, id }))).toEqual({ insertedAt, id });
      }),
    );
  });

  it('never throws on foreign input and rejects it', () => {
    fc.assert(fc.property(fc.string(), (value) => {
      const decoded = decodeCursor(value);
      if (decoded) expect(decodeCursor(encodeCursor(decoded))).toEqual(decoded);
    }));
    expect(decodeCursor('')).toBeNull();
    expect(decodeCursor(Buffer.from('["x","y"]').toString('base64url'))).toBeNull();
    expect(decodeCursor(Buffer.from('{"a":1}').toString('base64url'))).toBeNull();
    expect(decodeCursor('%%%')).toBeNull();
  });

  it('rejects timestamps that match the pattern but do not exist (the database would refuse them)', () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const cursorOf = (insertedAt: string) => Buffer.from(JSON.stringify([insertedAt, id])).toString('base64url');
    for (const impossible of ['0000-00-00T00:00:00Z', '2024-02-30 00:00:00+00', '2023-02-29 00:00:00', '2024-13-01 00:00:00', '2024-01-01 24:00:00', '2024-01-01 00:60:00', '2024-01-01 00:00:00+99', '2024-01-01 00:00:00+01:75']) {
      expect(decodeCursor(cursorOf(impossible)), impossible).toBeNull();
    }
    expect(decodeCursor(cursorOf('2024-02-29 23:59:59.999999+15:59'))).toEqual({ insertedAt: '2024-02-29 23:59:59.999999+15:59', id });
  });
});
