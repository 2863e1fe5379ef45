import { describe, expect, it } from 'vitest';
import { redactUrl } from './log-redaction';

describe('request log urls', () => {
  it('hide one-time console tokens and url signatures, and keep the rest', () => {
    expect(redactUrl('/web-console/shells/AbC_123-xyz')).toBe('/web-console/shells/[redacted]');
    expect(redactUrl('/web-console/shells/AbC?x=1')).toBe('/web-console/shells/[redacted]?x=1');
    expect(redactUrl('/blobs/binaries/1?expires=1700000000&signature=deadbeef')).toBe('/blobs/binaries/1?expires=1700000000&signature=[redacted]');
    expect(redactUrl('/x?Token=a&b=2&secret=s#f')).toBe('/x?Token=[redacted]&b=2&secret=[redacted]#f');
    expect(redactUrl('/products?limit=10&search=name')).toBe('/products?limit=10&search=name');
  });
});
