import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clausesParts } from './arbitraries.test-support';
import { formatClause, formatSearch } from '@canopy/sdk/search';
import { parseSearch } from './parse';

describe('formatSearch', () => {
  it.each([
    [[{ field: 'name', operator: ':', value: { kind: 'string', text: 'gateway' } }], "name:'gateway'"],
    [[{ field: 'name', operator: '-', value: { kind: 'string', text: "it's a\\b" } }], "name-'it\\'s a\\\\b'"],
    [[{ field: 'size', operator: '>=', value: { kind: 'number', text: '-1.50' } }], 'size>=-1.50'],
    [
      [
        { field: 'quarantined', operator: ':', value: { kind: 'boolean', value: false } },
        { field: 'description', operator: ':', value: { kind: 'null' } },
      ],
      'quarantined:false and description:null',
    ],
  ] as const)('%j -> %s', (clauses, text) => {
    expect(formatSearch(clauses)).toBe(text);
  });

  it('parses back to the same clauses (parse(format(x)) == x)', () => {
    fc.assert(
      fc.property(clausesParts, (parts) => {
        const expected = parts.map((clause) => ({ ...clause, text: formatClause(clause) }));
        expect(parseSearch(formatSearch(parts))).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
