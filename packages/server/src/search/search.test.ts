import { PgDialect, pgTable, text } from 'drizzle-orm/pg-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../http/errors';
import { searchLikeInput } from './arbitraries.test-support';
import { MAX_SEARCH_CLAUSES, parseSearch, searchCondition, type SearchErrorReason, type SearchFields } from './search';

const REASONS: SearchErrorReason[] = [
  'not_a_string',
  'empty',
  'too_many_clauses',
  'malformed_clause',
  'unterminated_string',
  'unknown_field',
  'operator_not_allowed',
  'invalid_value',
];

const artifacts = pgTable('artifacts', { name: text('name').notNull() });
const FIELDS: SearchFields = { name: { type: 'string', column: artifacts.name, operators: [':', '-'] } };

function expectSearchError(error: unknown): void {
  expect(error).toBeInstanceOf(ApiError);
  const { status, errors } = error as ApiError;
  expect(status).toBe(400);
  expect(errors).toHaveLength(1);
  expect(errors[0].code).toBe('parameter');
  expect(errors[0].context.parameter).toBe('search');
  expect(REASONS).toContain(errors[0].context.reason);
  expect(typeof errors[0].context.clause).toBe('string');
}

describe('parseSearch on any input', () => {
  it('returns 1 to 5 clauses or throws a 400 parameter error, nothing else', () => {
    fc.assert(
      fc.property(searchLikeInput, (input) => {
        let clauses;
        try {
          clauses = parseSearch(input);
        } catch (error) {
          expectSearchError(error);
          return;
        }
        expect(clauses.length).toBeGreaterThanOrEqual(1);
        expect(clauses.length).toBeLessThanOrEqual(MAX_SEARCH_CLAUSES);
        // each clause's text is a piece of the input, so errors quote what the caller wrote
        for (const clause of clauses) expect(input).toContain(clause.text);
      }),
      { numRuns: 5000 },
    );
  });

  it('quotes a piece of the input as the failing clause', () => {
    fc.assert(
      fc.property(searchLikeInput, (input) => {
        try {
          parseSearch(input);
        } catch (error) {
          expect(input).toContain((error as ApiError).errors[0].context.clause);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('searchCondition', () => {
  const dialect = new PgDialect();

  it.each([undefined, null, ''])('is undefined without a search (%j)', (raw) => {
    expect(searchCondition(raw, FIELDS)).toBeUndefined();
  });

  it('compiles a search', () => {
    const condition = searchCondition("name-'gate' and name:'gateway'", FIELDS);
    expect(condition).toBeDefined();
    expect(dialect.sqlToQuery(condition!)).toMatchObject({
      sql: `("artifacts"."name" ilike $1 escape '\\' and "artifacts"."name" = $2)`,
      params: ['%gate%', 'gateway'],
    });
  });

  it('refuses a repeated parameter', () => {
    expect(() => searchCondition(["name:'a'", "name:'b'"], FIELDS)).toThrow(ApiError);
    try {
      searchCondition(["name:'a'", "name:'b'"], FIELDS);
    } catch (error) {
      expect((error as ApiError).errors[0].context).toEqual({ parameter: 'search', reason: 'not_a_string', clause: '' });
    }
  });

  it.each<[string, string]>([
    ['  ', 'empty'],
    ["name:'a", 'unterminated_string'],
    ["size:'a'", 'unknown_field'],
    ["name~'a'", 'operator_not_allowed'],
    ['name:1', 'invalid_value'],
  ])('passes on the 400 for %j', (raw, reason) => {
    try {
      searchCondition(raw, FIELDS);
      expect.unreachable();
    } catch (error) {
      expectSearchError(error);
      expect((error as ApiError).errors[0].context.reason).toBe(reason);
    }
  });
});
