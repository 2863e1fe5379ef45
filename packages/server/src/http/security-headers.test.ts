import helmet from 'helmet';
import { describe, expect, it } from 'vitest';
import { headersOf } from './security-headers';

describe('headersOf', () => {
  it("reads helmet's headers once, as its middleware sets them", () => {
    const headers = headersOf(helmet() as never);
    expect(headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(headers['strict-transport-security']).toMatch(/max-age=/);
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(Object.keys(headers).every((name) => name === name.toLowerCase())).toBe(true);
  });

  it('refuses a middleware that does not finish at once', () => {
    expect(() => headersOf(() => {})).toThrow(/did not finish/);
  });
});
