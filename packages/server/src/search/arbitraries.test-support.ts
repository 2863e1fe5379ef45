/**
 * fast-check generators for search clauses, shared by the format and whole-module property tests.
 * Strings lean on the characters that make quoting hard (quotes, backslashes, ` and `, operators).
 */
import fc from 'fast-check';
import { formatValue } from '@canopy/sdk/search';
import { MAX_SEARCH_CLAUSES, OPERATORS, type SearchClause, type SearchValue } from './syntax';

export type ClauseParts = Omit<SearchClause, 'text'>;

const TRICKY_TEXT = ["'", '\\', ' and ', 'and', ' ', '\t', ':', '-', '~', '<=', '>', '%', '_', 'null', 'true', '1.5', 'é', '🌲'];

export const fieldName = fc.stringMatching(/^[a-z][a-z0-9_]{0,12}$/);

export const searchText = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.array(fc.oneof(fc.constantFrom(...TRICKY_TEXT), fc.string({ maxLength: 3 })), { maxLength: 12 }).map((parts) => parts.join('')),
);

export const searchValue: fc.Arbitrary<SearchValue> = fc.oneof(
  searchText.map((text) => ({ kind: 'string' as const, text })),
  fc.stringMatching(/^-?\d{1,20}(\.\d{1,8})?$/).map((text) => ({ kind: 'number' as const, text })),
  fc.boolean().map((value) => ({ kind: 'boolean' as const, value })),
  fc.constant({ kind: 'null' as const }),
);

export const clauseParts: fc.Arbitrary<ClauseParts> = fc.record({
  field: fieldName,
  operator: fc.constantFrom(...OPERATORS),
  value: searchValue,
});

export const clausesParts = fc.array(clauseParts, { minLength: 1, maxLength: MAX_SEARCH_CLAUSES });

/** Clause-shaped text, valid about half the time and otherwise broken in one place or two. */
const nearlyAClause = fc
  .tuple(
    fc.oneof({ arbitrary: fieldName, weight: 6 }, fc.constantFrom('', 'Name', '_x', '1a', "'")),
    fc.oneof({ arbitrary: fc.constantFrom(...OPERATORS), weight: 6 }, fc.constantFrom('', '=', ' : ', '!')),
    fc.oneof({ arbitrary: searchValue.map(formatValue), weight: 6 }, fc.constantFrom("'open", 'gateway', '1e3', 'TRUE', "'a'b", '\\', "'\\x'"), fc.string({ maxLength: 3 })),
  )
  .map((parts) => parts.join(''));

/** Any string, from random to nearly valid search text, to reach every branch of the parser. */
export const searchLikeInput = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc
    .array(fc.oneof(fc.constantFrom(...TRICKY_TEXT, "name:'", "'x'", 'size>=', '-3', ' and name-', "\\'", '\n', 'AND'), fieldName, fc.string({ maxLength: 4 })), {
      maxLength: 30,
    })
    .map((parts) => parts.join('')),
  fc
    .tuple(fc.array(nearlyAClause, { minLength: 1, maxLength: 7 }), fc.constantFrom(' and ', '  and\t', ' AND ', 'and', ' '))
    .map(([clauses, separator]) => clauses.join(separator)),
);
