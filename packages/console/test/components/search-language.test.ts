import { describe, expect, it } from 'vitest';
import { formatSearch, parseSearch, SearchSyntaxError } from '../../src/features/fleet/search-language';

describe('search language', () => {
  it('formats clauses with quoting and escapes, and parses them back', () => {
    const clauses = [
      { field: 'identifier', operator: '~' as const, value: "o'brien\\x" },
      { field: 'quarantined', operator: ':' as const, value: false },
      { field: 'tags', operator: ':' as const, value: 'east and west' },
      { field: 'cohort_prn', operator: ':' as const, value: null },
    ];
    const text = formatSearch(clauses);
    expect(text).toBe("identifier~'o\\'brien\\\\x' and quarantined:false and tags:'east and west' and cohort_prn:null");
    expect(parseSearch(text)).toEqual(clauses);
  });

  it('reads the two-character operators and spaces around them', () => {
    expect(parseSearch("last_connected_at >= '2025-06-01T00:00:00Z'  and  target-'x'")).toEqual([
      { field: 'last_connected_at', operator: '>=', value: '2025-06-01T00:00:00Z' },
      { field: 'target', operator: '-', value: 'x' },
    ]);
  });

  it('names the clause that does not parse', () => {
    expect(() => parseSearch("identifier:'open")).toThrow(SearchSyntaxError);
    const error = (() => {
      try {
        parseSearch('quarantined:true and identifier:bare');
        return null;
      } catch (caught) {
        return caught as SearchSyntaxError;
      }
    })();
    expect(error).toMatchObject({ clause: 'identifier:bare', reason: 'invalid_value' });
    expect(parseSearch('   ')).toEqual([]);
  });
});

describe('free text and count chips', () => {
  it('reads plain words as "identifier contains", and leaves the language alone', async () => {
    const { freeText } = await import('../../src/features/fleet/search-language');
    expect(freeText('gw-alpha')).toEqual([{ field: 'identifier', operator: '~', value: 'gw-alpha' }]);
    expect(freeText('gateway east')).toEqual([{ field: 'identifier', operator: '~', value: 'gateway east' }]);
    expect(freeText("tags:'east'")).toBeNull();
    expect(freeText('tags:east')).toBeNull();
    expect(freeText('')).toBeNull();
  });

  it("puts a chip's clause in place of a condition on the same field", async () => {
    const { withClause } = await import('../../src/features/fleet/search-language');
    expect(withClause("identifier~'gw' and online:true", 'online:false')).toBe("identifier~'gw' and online:false");
    expect(withClause('', 'quarantined:true')).toBe('quarantined:true');
  });
});
