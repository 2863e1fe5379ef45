/**
 * A resource's search whitelist: the fields a caller may name, what each one is compared to, and
 * with which operators. The operator lists are typed per field type, so a resource cannot offer
 * an operator that makes no sense for its field (a substring of a number, an ordering of a prn).
 * A prn field is built per request, its `resolve` taking prns of the caller's organization only
 * (examples: devices/search.ts, cohorts/service.ts):
 *
 *   identifier:  { type: 'string', column: devices.identifier, operators: [':', '-', '~'] },
 *   product_prn: { type: 'prn', column: cohorts.productId, operators: [':'],
 *                  resolve: (prn) => resourceIdFromPrn(prn, 'product', organizationId) },
 */
import type { SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { ComparisonOperator, Operator } from './syntax';

/**
 * A table column or any SQL expression. For an enum column give `sql\`${column}::text\``, so that
 * a value outside the enum matches nothing instead of failing PostgreSQL's cast with a 500.
 */
export type SearchColumn = AnyPgColumn | SQL;

/** Text: equality, both substrings and the orderings (by the column's collation). */
export interface StringSearchField {
  type: 'string';
  column: SearchColumn;
  operators: readonly Operator[];
}

/** A bare number, compared as numeric so that any integer or decimal column works exactly. */
export interface NumberSearchField {
  type: 'number';
  column: SearchColumn;
  operators: readonly ComparisonOperator[];
}

/** A quoted RFC 3339 date-time (see parseDateTime), e.g. `'2025-01-01T00:00:00Z'`. */
export interface DateTimeSearchField {
  type: 'datetime';
  column: SearchColumn;
  operators: readonly ComparisonOperator[];
}

export interface BooleanSearchField {
  type: 'boolean';
  column: SearchColumn;
  operators: readonly ':'[];
}

/**
 * A quoted prn that the column stores as the row's uuid. `resolve` turns the prn into that uuid,
 * or null for a malformed prn or one of another type or organization, which then matches nothing
 * (a search must not reveal whether such a resource exists).
 */
export interface PrnSearchField {
  type: 'prn';
  column: SearchColumn;
  operators: readonly ':'[];
  resolve: (prn: string) => string | null;
}

export type SearchField = StringSearchField | NumberSearchField | DateTimeSearchField | BooleanSearchField | PrnSearchField;

export type SearchFieldType = SearchField['type'];

/** Keyed by the field name callers write, snake_case as on the wire. */
export type SearchFields = Readonly<Record<string, SearchField>>;
