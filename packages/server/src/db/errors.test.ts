import { describe, expect, it } from 'vitest';
import { isUniqueViolation, sqlState } from './errors';

describe('database errors', () => {
  it('finds the SQLSTATE on the error or in what wraps it', () => {
    expect(sqlState({ code: '23505' })).toBe('23505');
    expect(sqlState({ message: 'query failed', cause: { code: '22012' } })).toBe('22012');
    expect(sqlState({ cause: { cause: { code: '23503' } } })).toBe('23503');
    expect(sqlState({ code: 'ECONNRESET' })).toBeUndefined();
    expect(sqlState(null)).toBeUndefined();
  });

  it('tells a unique violation, optionally of one constraint', () => {
    expect(isUniqueViolation({ code: '23505', constraint: 'products_org_name_unique' })).toBe(true);
    expect(isUniqueViolation({ cause: { code: '23505', constraint: 'a' } }, 'a')).toBe(true);
    expect(isUniqueViolation({ code: '23505', constraint: 'a' }, 'b')).toBe(false);
    expect(isUniqueViolation({ code: '23503' })).toBe(false);
  });
});
