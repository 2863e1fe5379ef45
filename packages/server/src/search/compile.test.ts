import { sql } from 'drizzle-orm';
import { boolean, integer, PgDialect, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../http/errors';
import { fieldName, searchText, searchValue } from './arbitraries.test-support';
import { compileSearch, escapeLike } from './compile';
import type { SearchFields } from './fields';
import { formatClause } from '@canopy/sdk/search';
import { OPERATORS } from './syntax';
import { parseSearch } from './parse';

const devices = pgTable('devices', {
  id: uuid('id').primaryKey(),
  identifier: text('identifier').notNull(),
  description: text('description'),
  status: text('status').notNull(),
  quarantined: boolean('quarantined').notNull(),
  firmwareSize: integer('firmware_size'),
  productId: uuid('product_id'),
  insertedAt: timestamp('inserted_at', { withTimezone: true, mode: 'string', precision: 6 }).notNull(),
  // mode 'date' would call .toISOString() on a string parameter if it were used as the encoder
  lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }),
});

const PRODUCT_ID = '6f1c1b8e-0d3a-4c5e-9a57-0a1b2c3d4e5f';
const PRODUCT_PRN = `prn:1:00000000-0000-0000-0000-000000000001:product:${PRODUCT_ID}`;

const FIELDS = {
  identifier: { type: 'string', column: devices.identifier, operators: [':', '-', '~', '<', '<=', '>', '>='] },
  description: { type: 'string', column: devices.description, operators: [':', '-'] },
  status: { type: 'string', column: sql`${devices.status}::text`, operators: [':'] },
  quarantined: { type: 'boolean', column: devices.quarantined, operators: [':'] },
  firmware_size: { type: 'number', column: devices.firmwareSize, operators: [':', '<', '<=', '>', '>='] },
  inserted_at: { type: 'datetime', column: devices.insertedAt, operators: [':', '<', '<=', '>', '>='] },
  last_seen_at: { type: 'datetime', column: devices.lastSeenAt, operators: ['<', '>='] },
  product_prn: { type: 'prn', column: devices.productId, operators: [':'], resolve: (prn) => (prn === PRODUCT_PRN ? PRODUCT_ID : null) },
} satisfies SearchFields;

const dialect = new PgDialect();

function compiled(search: string): { sql: string; params: unknown[] } {
  const { sql: text, params } = dialect.sqlToQuery(compileSearch(parseSearch(search), FIELDS));
  return { sql: text, params };
}

function failure(search: string): Record<string, unknown> {
  try {
    compileSearch(parseSearch(search), FIELDS);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    return (error as ApiError).errors[0].context;
  }
  throw new Error(`compiling ${JSON.stringify(search)} did not throw`);
}

describe('compileSearch: SQL per field type and operator', () => {
  it.each<[string, string, unknown[]]>([
    // strings
    ["identifier:'gw-1'", '"devices"."identifier" = $1', ['gw-1']],
    ["identifier-'GW'", `"devices"."identifier" ilike $1 escape '\\'`, ['%GW%']],
    ["identifier~'GW'", `"devices"."identifier" like $1 escape '\\'`, ['%GW%']],
    ["identifier<'m'", '"devices"."identifier" < $1', ['m']],
    ["identifier<='m'", '"devices"."identifier" <= $1', ['m']],
    ["identifier>'m'", '"devices"."identifier" > $1', ['m']],
    ["identifier>='m'", '"devices"."identifier" >= $1', ['m']],
    // LIKE wildcards and the escape character in the caller's text match literally
    ["identifier-'100%_a\\\\b'", `"devices"."identifier" ilike $1 escape '\\'`, ['%100\\%\\_a\\\\b%']],
    ["identifier~''", `"devices"."identifier" like $1 escape '\\'`, ['%%']],
    // an expression column is parenthesised
    ["status:'online'", '("devices"."status"::text) = $1', ['online']],
    // numbers are compared as numeric, digits untouched
    ['firmware_size:10', '"devices"."firmware_size" = $1::numeric', ['10']],
    ['firmware_size<-2.5', '"devices"."firmware_size" < $1::numeric', ['-2.5']],
    ['firmware_size>=99999999999999999999', '"devices"."firmware_size" >= $1::numeric', ['99999999999999999999']],
    // booleans
    ['quarantined:true', '"devices"."quarantined" = $1', [true]],
    ['quarantined:false', '"devices"."quarantined" = $1', [false]],
    // date-times pass through as checked text, whatever the column's mode
    ["inserted_at>='2023-01-01T00:00:00Z'", '"devices"."inserted_at" >= $1', ['2023-01-01T00:00:00Z']],
    ["inserted_at:'2025-06-11T05:04:10.081728Z'", '"devices"."inserted_at" = $1', ['2025-06-11T05:04:10.081728Z']],
    ["inserted_at<'2025-06-11t07:00:00+02:00'", '"devices"."inserted_at" < $1', ['2025-06-11T07:00:00+02:00']],
    ["last_seen_at<'2024-02-29T23:59:59Z'", '"devices"."last_seen_at" < $1', ['2024-02-29T23:59:59Z']],
    // prns resolve to the row's uuid; an unknown or foreign prn matches nothing
    [`product_prn:'${PRODUCT_PRN}'`, '"devices"."product_id" = $1', [PRODUCT_ID]],
    ["product_prn:'prn:1:elsewhere'", 'false', []],
    // null asks for a missing value, on any field that allows ':'
    ['description:null', '"devices"."description" is null', []],
    ['product_prn:null', '"devices"."product_id" is null', []],
    ['status:null', '("devices"."status"::text) is null', []],
  ])('%s', (search, expectedSql, expectedParams) => {
    expect(compiled(search)).toEqual({ sql: expectedSql, params: expectedParams });
  });

  it('joins clauses with and, numbering parameters in order', () => {
    expect(compiled("inserted_at>='2023-01-01T00:00:00Z' and identifier-'gateway' and quarantined:false")).toEqual({
      sql: `("devices"."inserted_at" >= $1 and "devices"."identifier" ilike $2 escape '\\' and "devices"."quarantined" = $3)`,
      params: ['2023-01-01T00:00:00Z', '%gateway%', false],
    });
  });

  it('compiles 5 clauses', () => {
    const search = "identifier:'a' and description-'b' and quarantined:true and firmware_size>1 and product_prn:'x'";
    expect(compiled(search)).toEqual({
      sql: `("devices"."identifier" = $1 and "devices"."description" ilike $2 escape '\\' and "devices"."quarantined" = $3 and "devices"."firmware_size" > $4::numeric and false)`,
      params: ['a', '%b%', true, '1'],
    });
  });
});

describe('compileSearch: the whitelist refuses with a 400 naming the clause', () => {
  it.each<[string, Record<string, unknown>]>([
    ["serial:'x'", { reason: 'unknown_field', clause: "serial:'x'", field: 'serial' }],
    ["constructor:'x'", { reason: 'unknown_field', clause: "constructor:'x'", field: 'constructor' }],
    ["identifier:'a' and nope:1", { reason: 'unknown_field', clause: 'nope:1' }],
    ["description~'x'", { reason: 'operator_not_allowed', clause: "description~'x'", field: 'description', operator: '~', operators: [':', '-'] }],
    ["quarantined-'t'", { reason: 'operator_not_allowed', clause: "quarantined-'t'" }],
    ["last_seen_at:'2024-01-01T00:00:00Z'", { reason: 'operator_not_allowed', clause: "last_seen_at:'2024-01-01T00:00:00Z'" }],
    // wrong value type for the field
    ['identifier:1', { reason: 'invalid_value', clause: 'identifier:1', field: 'identifier', expected: 'string' }],
    ['identifier:true', { reason: 'invalid_value', expected: 'string' }],
    ["firmware_size:'10'", { reason: 'invalid_value', clause: "firmware_size:'10'", expected: 'number' }],
    ['firmware_size:true', { reason: 'invalid_value', expected: 'number' }],
    ["quarantined:'true'", { reason: 'invalid_value', expected: 'boolean' }],
    ['quarantined:1', { reason: 'invalid_value', expected: 'boolean' }],
    ['product_prn:1', { reason: 'invalid_value', expected: 'prn' }],
    // date-times must be real RFC 3339 date-times
    ['inserted_at>=1', { reason: 'invalid_value', expected: 'datetime' }],
    ["inserted_at>='2023-01-01'", { reason: 'invalid_value', clause: "inserted_at>='2023-01-01'", expected: 'datetime' }],
    ["inserted_at>='2023-02-30T00:00:00Z'", { reason: 'invalid_value', expected: 'datetime' }],
    ["inserted_at>='2023-01-01T24:00:00Z'", { reason: 'invalid_value', expected: 'datetime' }],
    ["inserted_at>='2023-01-01 00:00:00Z'", { reason: 'invalid_value', expected: 'datetime' }],
    ["inserted_at>='2023-01-01T00:00:00'", { reason: 'invalid_value', expected: 'datetime' }],
    // null only with equality
    ['firmware_size<null', { reason: 'invalid_value', clause: 'firmware_size<null' }],
    ['identifier-null', { reason: 'invalid_value', clause: 'identifier-null' }],
  ])('%s', (search, expected) => {
    expect(failure(search)).toMatchObject({ parameter: 'search', ...expected });
  });

  it('lists the known fields with unknown_field', () => {
    expect(failure("serial:'x'").fields).toEqual(Object.keys(FIELDS));
  });

  it('refuses on the first bad clause even when later ones are fine', () => {
    expect(failure("identifier~'a' and serial:'x'")).toMatchObject({ reason: 'unknown_field', clause: "serial:'x'" });
    expect(failure("serial:'x' and description~'a'")).toMatchObject({ reason: 'unknown_field', clause: "serial:'x'" });
  });
});

describe('compileSearch: properties', () => {
  // Mostly whitelisted names, so the type and operator checks are reached, not just unknown_field.
  const knownFieldClauses = fc.array(
    fc.record({ field: fc.oneof(fc.constantFrom(...Object.keys(FIELDS)), fieldName), operator: fc.constantFrom(...OPERATORS), value: searchValue }),
    { minLength: 1, maxLength: 5 },
  );

  it('compiles any well-formed clauses or throws a 400 parameter error naming one of them', () => {
    fc.assert(
      fc.property(knownFieldClauses, (parts) => {
        const clauses = parts.map((clause) => ({ ...clause, text: formatClause(clause) }));
        try {
          dialect.sqlToQuery(compileSearch(clauses, FIELDS));
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError);
          const { status, errors } = error as ApiError;
          expect(status).toBe(400);
          expect(errors[0].context.parameter).toBe('search');
          expect(clauses.map((c) => c.text)).toContain(errors[0].context.clause);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('escapeLike leaves no unescaped wildcard and loses no character', () => {
    fc.assert(
      fc.property(searchText, (text) => {
        const escaped = escapeLike(text);
        expect(escaped.replace(/\\[\\%_]/g, '')).not.toMatch(/[\\%_]/);
        expect(escaped.replace(/\\(.)/gs, '$1')).toBe(text);
      }),
    );
  });
});
