/**
 * The parameter arrays we write ourselves, read back by a real PostgreSQL (PGlite in memory)
 * through the same `unnestParameters` text the grouped statements use: every value must come
 * out exactly as it went in, whatever a text holds.
 */
import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_ELEMENTS, parameterArray, parameterArrays, unnestParameters } from './array-parameters';

let client: PGlite;

beforeAll(async () => {
  client = new PGlite();
});

afterAll(async () => {
  await client.close();
});

const NUMBERS = new Set(['int', 'int8', 'float8']);

/** The rows PostgreSQL reads from `columns` written as `types`: numbers as numbers, JSON as JSON, the rest as text. */
async function readBack(types: string[], columns: unknown[][]): Promise<unknown[][]> {
  const names = types.map((_, i) => `c${i}`);
  const cells = names.map((name, i) => (types[i] === JSON_ELEMENTS ? name : NUMBERS.has(types[i]) ? `${name}::float8` : `${name}::text`));
  const { rows } = await client.query<unknown[]>(`select ${cells.join(', ')} from ${unnestParameters(1, types)} as t(${names.join(', ')})`, parameterArrays(types, columns), {
    rowMode: 'array',
  });
  return rows;
}

/** `columns` as rows. */
function asRows(columns: unknown[][]): unknown[][] {
  return columns[0].map((_, row) => columns.map((column) => column[row]));
}

// PostgreSQL's text cannot hold NUL; every other character must survive. Array literals' own
// characters are drawn often, any character sometimes.
const special = fc.constantFrom('"', '\\', ',', '{', '}', ' ', '\t', 'NULL', 'a', 'é', '🚀');
const text = fc
  .string({ unit: fc.oneof({ arbitrary: special, weight: 4 }, { arbitrary: fc.string({ unit: 'binary', maxLength: 1 }), weight: 1 }), maxLength: 40 })
  .filter((value) => !value.includes('\u0000'));

describe('parameter arrays', () => {
  it('read back every text exactly: quotes, backslashes, commas, braces, spaces, the word NULL, the empty string and null', async () => {
    const values = ['plain', '', 'NULL', 'null', 'a,b', '{x}', '"quoted"', 'back\\slash', '\\"', ' spaced ', 'tab\there', 'ünïcødé 🚀', null];
    expect(await readBack(['text'], [values])).toEqual(values.map((value) => [value]));
  });

  it('read back any text (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(text), { maxLength: 8 }), async (values) => {
        expect(await readBack(['text'], [values])).toEqual(values.map((value) => [value]));
      }),
      { numRuns: 200 },
    );
  });

  it('read back ids and numbers unquoted, nulls included, and zip columns row by row', async () => {
    const columns = [
      ['11111111-1111-4111-8111-111111111111', null, '33333333-3333-4333-8333-333333333333'],
      [1, null, 3],
      [0.5, 1e-7, null],
      ['first', 'sec"ond', null],
    ];
    expect(await readBack(['uuid', 'int8', 'float8', 'text'], columns)).toEqual(asRows(columns));
  });

  it('read back JSON elements as the same JSON values, with quotes and backslashes inside', async () => {
    const data = [{ device: 'prn:1:x', reported: { release_version: '1.0.0-"rc"\\1' }, list: [1, null] }, { status: 'no_update' }];
    const rows = await readBack(['uuid', JSON_ELEMENTS], [['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222'], data]);
    expect(rows.map((row) => row[1])).toEqual(data);
  });

  it('write an empty array as one, which yields no rows', async () => {
    expect(parameterArray('uuid', [])).toBe('{}');
    expect(parameterArray('text', [])).toBe('{}');
    expect(await readBack(['uuid', 'text', JSON_ELEMENTS], [[], [], []])).toEqual([]);
  });

  it('refuse columns that do not match their types', () => {
    expect(() => parameterArrays(['uuid', 'text'], [[]])).toThrow(/1 columns for 2 types/);
  });
});
