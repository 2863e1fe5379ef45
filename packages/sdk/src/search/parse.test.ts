import { describe, expect, it } from 'vitest';
import { formatSearch, parseSearch, SearchSyntaxError } from './index';

/** The error parseSearch threw for `input`; fails the test if it threw none. */
function failure(input: string): SearchSyntaxError {
  try {
    parseSearch(input);
  } catch (error) {
    expect(error).toBeInstanceOf(SearchSyntaxError);
    return error as SearchSyntaxError;
  }
  throw new Error(`parseSearch(${JSON.stringify(input)}) did not throw`);
}

describe('parseSearch (the one parser of the search language)', () => {
  it('reads clauses joined by and, with every kind of value', () => {
    expect(parseSearch("identifier~'gw' and quarantined:false and size>=1.5 and description:null")).toEqual([
      { field: 'identifier', operator: '~', value: { kind: 'string', text: 'gw' }, text: "identifier~'gw'" },
      { field: 'quarantined', operator: ':', value: { kind: 'boolean', value: false }, text: 'quarantined:false' },
      { field: 'size', operator: '>=', value: { kind: 'number', text: '1.5' }, text: 'size>=1.5' },
      { field: 'description', operator: ':', value: { kind: 'null' }, text: 'description:null' },
    ]);
  });

  it.each([
    ['gateway', 'malformed_clause', 'gateway'],
    ["name:'open", 'unterminated_string', "name:'open"],
    ['name:gateway', 'invalid_value', 'name:gateway'],
    ["name:'a\\b'", 'invalid_value', "name:'a\\b'"],
    ['   ', 'empty', ''],
  ])('%j is refused as %s, quoting the clause', (input, reason, clause) => {
    const error = failure(input);
    expect(error.reason).toBe(reason);
    expect(error.clause).toBe(clause);
  });

  it('refuses a sixth clause and names the limit', () => {
    const error = failure(Array.from({ length: 6 }, (_, i) => `f${i}:true`).join(' and '));
    expect(error).toMatchObject({ reason: 'too_many_clauses', clause: 'f5:true', detail: { max: 5 } });
  });

  it('formats clauses back to text the parser reads the same', () => {
    const text = "name-'it\\'s a\\\\b' and id:null";
    expect(formatSearch(parseSearch(text))).toBe(text);
  });
});
