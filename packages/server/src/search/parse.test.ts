import { describe, expect, it } from 'vitest';
import { ApiError } from '../http/errors';
import { parseSearch } from './parse';
import type { SearchClause, SearchValue } from './syntax';

const str = (text: string): SearchValue => ({ kind: 'string', text });
const num = (text: string): SearchValue => ({ kind: 'number', text });
const bool = (value: boolean): SearchValue => ({ kind: 'boolean', value });
const NULL: SearchValue = { kind: 'null' };

/** The 400 context parseSearch threw for `input`; fails the test if it did not throw one. */
function failure(input: string): Record<string, unknown> {
  try {
    parseSearch(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.status).toBe(400);
    expect(apiError.errors).toHaveLength(1);
    expect(apiError.errors[0].code).toBe('parameter');
    return apiError.errors[0].context;
  }
  throw new Error(`parseSearch(${JSON.stringify(input)}) did not throw`);
}

describe('parseSearch: one clause', () => {
  it.each<[string, Omit<SearchClause, 'text'>]>([
    // every operator
    ["name:'gateway'", { field: 'name', operator: ':', value: str('gateway') }],
    ["name-'gate'", { field: 'name', operator: '-', value: str('gate') }],
    ["name~'Gate'", { field: 'name', operator: '~', value: str('Gate') }],
    ['size<10', { field: 'size', operator: '<', value: num('10') }],
    ['size<=10', { field: 'size', operator: '<=', value: num('10') }],
    ['size>10', { field: 'size', operator: '>', value: num('10') }],
    ['size>=10', { field: 'size', operator: '>=', value: num('10') }],
    // numbers
    ['size:0', { field: 'size', operator: ':', value: num('0') }],
    ['size>-5', { field: 'size', operator: '>', value: num('-5') }],
    ['size>=-5', { field: 'size', operator: '>=', value: num('-5') }],
    ['ratio<0.25', { field: 'ratio', operator: '<', value: num('0.25') }],
    ['ratio<-12.50', { field: 'ratio', operator: '<', value: num('-12.50') }],
    ['size:123456789012345678901234567890', { field: 'size', operator: ':', value: num('123456789012345678901234567890') }],
    // `-` is the substring operator when it follows the field, even before a number
    ['size-5', { field: 'size', operator: '-', value: num('5') }],
    // booleans and null
    ['quarantined:true', { field: 'quarantined', operator: ':', value: bool(true) }],
    ['quarantined:false', { field: 'quarantined', operator: ':', value: bool(false) }],
    ['description:null', { field: 'description', operator: ':', value: NULL }],
    // quoted words that look like bare values stay strings
    ["name:'true'", { field: 'name', operator: ':', value: str('true') }],
    ["name:'null'", { field: 'name', operator: ':', value: str('null') }],
    ["name:'42'", { field: 'name', operator: ':', value: str('42') }],
    // quoting and escapes
    ["name:''", { field: 'name', operator: ':', value: str('') }],
    ["name:'it\\'s'", { field: 'name', operator: ':', value: str("it's") }],
    ["name:'a\\\\b'", { field: 'name', operator: ':', value: str('a\\b') }],
    ["name:'\\\\'", { field: 'name', operator: ':', value: str('\\') }],
    ["name:'\\''", { field: 'name', operator: ':', value: str("'") }],
    ["name:'ends with backslash\\\\'", { field: 'name', operator: ':', value: str('ends with backslash\\') }],
    ["name-'100% _done_'", { field: 'name', operator: '-', value: str('100% _done_') }],
    ["name:'  spaced  '", { field: 'name', operator: ':', value: str('  spaced  ') }],
    ["name:'élan ✓ 🌲'", { field: 'name', operator: ':', value: str('élan ✓ 🌲') }],
    ["name:'a:b<=c>d~e-f'", { field: 'name', operator: ':', value: str('a:b<=c>d~e-f') }],
    // and inside quotes is text, not a separator
    ["name:'rock and roll'", { field: 'name', operator: ':', value: str('rock and roll') }],
    ["name:' and '", { field: 'name', operator: ':', value: str(' and ') }],
    ["name:'x\\' and y:\\'z'", { field: 'name', operator: ':', value: str("x' and y:'z") }],
    // date-times are plain strings to the parser; the field's type decides
    ["inserted_at>='2023-01-01T00:00:00Z'", { field: 'inserted_at', operator: '>=', value: str('2023-01-01T00:00:00Z') }],
    ["inserted_at<'2025-06-11T05:04:10.081728Z'", { field: 'inserted_at', operator: '<', value: str('2025-06-11T05:04:10.081728Z') }],
    // snake_case fields, digits allowed after the first letter
    ["artifact_version_prn:'prn:1:x'", { field: 'artifact_version_prn', operator: ':', value: str('prn:1:x') }],
    ['v2_count>1', { field: 'v2_count', operator: '>', value: num('1') }],
    // whitespace around the operator and the whole input is allowed
    ["name : 'gateway'", { field: 'name', operator: ':', value: str('gateway') }],
    ['size <= 10', { field: 'size', operator: '<=', value: num('10') }],
    ["  \tname-'x'\n ", { field: 'name', operator: '-', value: str('x') }],
  ])('%s', (input, expected) => {
    expect(parseSearch(input)).toEqual([{ ...expected, text: input.trim() }]);
  });
});

describe('parseSearch: several clauses', () => {
  it('splits on and, keeping each clause text', () => {
    expect(parseSearch("inserted_at>='2023-01-01T00:00:00Z' and name-'gateway'")).toEqual([
      { field: 'inserted_at', operator: '>=', value: str('2023-01-01T00:00:00Z'), text: "inserted_at>='2023-01-01T00:00:00Z'" },
      { field: 'name', operator: '-', value: str('gateway'), text: "name-'gateway'" },
    ]);
  });

  it('accepts any whitespace run around and', () => {
    expect(parseSearch("a:1  and\tb:'x'\nand  c:true").map((c) => c.text)).toEqual(['a:1', "b:'x'", 'c:true']);
  });

  it('accepts 5 clauses', () => {
    expect(parseSearch('a:1 and b:2 and c:3 and d:4 and e:5').map((c) => c.field)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('treats and inside quotes as text between real separators', () => {
    expect(parseSearch("name:'salt and pepper' and note-'x and y'").map((c) => c.value)).toEqual([str('salt and pepper'), str('x and y')]);
  });

  it('accepts a field called and', () => {
    expect(parseSearch('and:1 and and:2').map((c) => c.text)).toEqual(['and:1', 'and:2']);
  });
});

describe('parseSearch: failures name the reason and the clause', () => {
  it.each<[string, string, string]>([
    // nothing there
    ['', 'empty', ''],
    ['   \t ', 'empty', ''],
    // count
    ['a:1 and b:2 and c:3 and d:4 and e:5 and f:6', 'too_many_clauses', 'f:6'],
    // shape
    ['name', 'malformed_clause', 'name'],
    ["'gateway'", 'malformed_clause', "'gateway'"],
    ["name='x'", 'malformed_clause', "name='x'"],
    ["Name:'x'", 'malformed_clause', "Name:'x'"],
    ["_name:'x'", 'malformed_clause', "_name:'x'"],
    ["1name:'x'", 'malformed_clause', "1name:'x'"],
    ["first-name:'x'", 'invalid_value', "first-name:'x'"],
    ['name:', 'malformed_clause', 'name:'],
    ["name:'a' 'b'", 'malformed_clause', "name:'a' 'b'"],
    ["name:'a'b", 'malformed_clause', "name:'a'b"],
    ["a:1 and b:2 and", 'invalid_value', 'b:2 and'],
    ["and a:1", 'malformed_clause', 'and a:1'],
    ["a:1 AND b:2", 'invalid_value', 'a:1 AND b:2'],
    ["a:1 and and b:2", 'malformed_clause', 'and b:2'],
    ["a:1 and  ", 'invalid_value', 'a:1 and'],
    // strings
    ["name:'gateway", 'unterminated_string', "name:'gateway"],
    ["name:'it\\'s", 'unterminated_string', "name:'it\\'s"],
    ["name:'ends in escape\\", 'unterminated_string', "name:'ends in escape\\"],
    ["a:1 and name:'x and b:2", 'unterminated_string', "name:'x and b:2"],
    ["name:'tab\\t'", 'invalid_value', "name:'tab\\t'"],
    // bare values
    ['name:gateway', 'invalid_value', 'name:gateway'],
    ['name:"gateway"', 'invalid_value', 'name:"gateway"'],
    ['q:TRUE', 'invalid_value', 'q:TRUE'],
    ['size:1.', 'invalid_value', 'size:1.'],
    ['size:.5', 'invalid_value', 'size:.5'],
    ['size:1e3', 'invalid_value', 'size:1e3'],
    ['size:--1', 'invalid_value', 'size:--1'],
    ['size:+1', 'invalid_value', 'size:+1'],
    ['size:1 2', 'invalid_value', 'size:1 2'],
    ['inserted_at>=2023-01-01T00:00:00Z', 'invalid_value', 'inserted_at>=2023-01-01T00:00:00Z'],
  ])('%j -> %s', (input, reason, clause) => {
    expect(failure(input)).toMatchObject({ parameter: 'search', reason, clause });
  });

  it('reports the maximum with too_many_clauses', () => {
    expect(failure('a:1 and a:1 and a:1 and a:1 and a:1 and a:1 and a:1')).toEqual({
      parameter: 'search',
      reason: 'too_many_clauses',
      clause: 'a:1',
      max: 5,
    });
  });

  it('counts clauses before reading them, so a 6th clause is refused even if an earlier one is broken', () => {
    expect(failure('a and b and c and d and e and f').reason).toBe('too_many_clauses');
  });

  it('reads a long whitespace run in linear time', () => {
    const started = performance.now();
    expect(failure(`a:1${' '.repeat(200_000)}b`).reason).toBe('invalid_value');
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
