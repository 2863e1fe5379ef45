/**
 * Clauses + a resource's whitelist -> one SQL condition for the list query's WHERE.
 *
 * Every value travels as a bound parameter; the only text spliced into the SQL is the operator,
 * taken from the fixed table below. Parameters carry no drizzle encoder, so a column in
 * mode 'date' never sees a string it would try to `.toISOString()`; PostgreSQL types the
 * parameter from the column it is compared with instead.
 */
import { and, is, SQL, sql } from 'drizzle-orm';
import type { SearchColumn, SearchField, SearchFields } from './fields';
import { searchError, type ComparisonOperator, type SearchClause, type SubstringOperator } from './syntax';
import { parseDateTime } from '../core/time';

const SQL_COMPARISON: Record<ComparisonOperator, string> = { ':': '=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };
const SQL_LIKE: Record<SubstringOperator, string> = { '-': 'ilike', '~': 'like' };

/** All clauses must hold. Throws the 400 naming the first clause the whitelist refuses. */
export function compileSearch(clauses: readonly SearchClause[], fields: SearchFields): SQL {
  // and() of one condition is that condition; the parser never returns zero clauses.
  const condition = and(...clauses.map((clause) => compileClause(clause, fields)));
  if (condition === undefined) throw new Error('compileSearch needs at least one clause');
  return condition;
}

function compileClause(clause: SearchClause, fields: SearchFields): SQL {
  // hasOwn, not `in` or indexing: a field called `constructor` must not find Object.prototype's.
  const field = Object.hasOwn(fields, clause.field) ? fields[clause.field] : undefined;
  if (field === undefined) {
    throw searchError('unknown_field', clause.text, { field: clause.field, fields: Object.keys(fields) });
  }
  const allowed: readonly string[] = field.operators;
  if (!allowed.includes(clause.operator)) {
    throw searchError('operator_not_allowed', clause.text, { field: clause.field, operator: clause.operator, operators: allowed });
  }
  // `null` is the one value every field type accepts: `field:null` asks for rows without a value.
  if (clause.value.kind === 'null') {
    if (clause.operator !== ':') throw invalidValue(clause, field);
    return sql`${operand(field.column)} is null`;
  }
  return compileTypedClause(clause, field);
}

function compileTypedClause(clause: SearchClause, field: SearchField): SQL {
  const { operator, value } = clause;
  switch (field.type) {
    case 'string':
      if (value.kind !== 'string') throw invalidValue(clause, field);
      if (operator === '-' || operator === '~') return substring(field.column, operator, value.text);
      return compare(field.column, operator, sql`${value.text}`);
    case 'number':
      if (value.kind !== 'number' || !isComparison(operator)) throw invalidValue(clause, field);
      // numeric compares any integer or decimal column exactly and never overflows an int4 parameter.
      return compare(field.column, operator, sql`${value.text}::numeric`);
    case 'datetime': {
      const dateTime = value.kind === 'string' ? parseDateTime(value.text) : null;
      if (dateTime === null || !isComparison(operator)) throw invalidValue(clause, field);
      return compare(field.column, operator, sql`${dateTime}`);
    }
    case 'boolean':
      if (value.kind !== 'boolean') throw invalidValue(clause, field);
      return compare(field.column, ':', sql`${value.value}`);
    case 'prn': {
      if (value.kind !== 'string') throw invalidValue(clause, field);
      const id = field.resolve(value.text);
      return id === null ? sql`false` : compare(field.column, ':', sql`${id}`);
    }
  }
}

/** An expression column is parenthesised so the operator after it cannot bind into it (`a || b = $1`). */
function operand(column: SearchColumn): SQL {
  return is(column, SQL) ? sql`(${column})` : sql`${column}`;
}

function compare(column: SearchColumn, operator: ComparisonOperator, right: SQL): SQL {
  return sql`${operand(column)} ${sql.raw(SQL_COMPARISON[operator])} ${right}`;
}

/** The ESCAPE is spelled out so the pattern does not depend on PostgreSQL's default. */
function substring(column: SearchColumn, operator: SubstringOperator, text: string): SQL {
  return sql`${operand(column)} ${sql.raw(SQL_LIKE[operator])} ${`%${escapeLike(text)}%`} escape '\\'`;
}

/** Makes `%`, `_` and `\` in a caller's text match themselves inside a LIKE pattern. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

function isComparison(operator: string): operator is ComparisonOperator {
  return Object.hasOwn(SQL_COMPARISON, operator);
}

function invalidValue(clause: SearchClause, field: SearchField) {
  return searchError('invalid_value', clause.text, { field: clause.field, expected: field.type });
}
