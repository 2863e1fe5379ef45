/**
 * The admin API's `search` parameter: one parser for the server, the console and scripts (docs:
 * site/docs/canopy-core/tools/admin-api.mdx, "Lists, pagination and search").
 *   search  = clause *( 1*WSP "and" 1*WSP clause )      ; 1 to 5 clauses; "and" is lowercase
 *   clause  = field *WSP operator *WSP value
 *   field   = [a-z] *[a-z0-9_]                          ; snake_case
 *   operator= ":" / "-" / "~" / "<" / "<=" / ">" / ">="
 *   value   = "'" *( char / "\'" / "\\" ) "'"           ; string (also date-times and prns)
 *           / "true" / "false" / ["-"] 1*DIGIT ["." 1*DIGIT]   ; boolean, number
 *           / "null"                                    ; only with ":", matches a missing value
 */
export const OPERATORS = [':', '-', '~', '<', '<=', '>', '>='] as const;
export type Operator = (typeof OPERATORS)[number];

/** Equality plus the orderings: what makes sense for numbers and date-times. */
export type ComparisonOperator = ':' | '<' | '<=' | '>' | '>=';

/** `-` case-insensitive, `~` case-sensitive; only strings have substrings. */
export type SubstringOperator = '-' | '~';

/**
 * A value as written. Numbers keep their digits as text so that no precision is lost on the
 * way to PostgreSQL (which compares them as numeric) and formatting gives back the same text.
 */
export type SearchValue =
  | { kind: 'string'; text: string }
  | { kind: 'number'; text: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'null' };

export interface SearchClause {
  field: string;
  operator: Operator;
  value: SearchValue;
  /** The clause as the caller wrote it, so every error can quote it back. */
  text: string;
}

export const MAX_SEARCH_CLAUSES = 5;

export type SearchErrorReason =
  | 'not_a_string'
  | 'empty'
  | 'too_many_clauses'
  | 'malformed_clause'
  | 'unterminated_string'
  | 'unknown_field'
  | 'operator_not_allowed'
  | 'invalid_value';

/** What the parser throws: the reason and the clause it concerns, as the server's 400 names them. */
export class SearchSyntaxError extends Error {
  constructor(
    readonly reason: SearchErrorReason,
    readonly clause: string,
    readonly detail: Record<string, unknown> = {},
  ) {
    super(`${reason}: ${clause}`);
    this.name = 'SearchSyntaxError';
  }
}
