/** The admin API's search language: parse text to clauses and format clauses to text. */
export { formatClause, formatSearch, formatValue } from './format';
export { parseSearch } from './parse';
export {
  MAX_SEARCH_CLAUSES,
  OPERATORS,
  SearchSyntaxError,
  type ComparisonOperator,
  type Operator,
  type SearchClause,
  type SearchErrorReason,
  type SearchValue,
  type SubstringOperator,
} from './syntax';
