/**
 * Clauses -> the canonical `search` text (no spaces around operators, one space around `and`).
 * Clients and tests build queries with it; parseSearch(formatSearch(c)) gives back c's meaning.
 */
import type { SearchClause, SearchValue } from './syntax';

type ClauseParts = Pick<SearchClause, 'field' | 'operator' | 'value'>;

export function formatSearch(clauses: readonly ClauseParts[]): string {
  return clauses.map(formatClause).join(' and ');
}

export function formatClause(clause: ClauseParts): string {
  return `${clause.field}${clause.operator}${formatValue(clause.value)}`;
}

export function formatValue(value: SearchValue): string {
  switch (value.kind) {
    case 'string':
      return `'${value.text.replace(/[\\']/g, (char) => `\\${char}`)}'`;
    case 'number':
      return value.text;
    case 'boolean':
      return String(value.value);
    case 'null':
      return 'null';
  }
}
