/**
 * The search language's vocabulary comes from the SDK (`@canopy/sdk/search`), which the console
 * and scripts parse with too; the server adds the 400 every search failure answers.
 */
import type { SearchErrorReason } from '@canopy/sdk/search';
import { parameterError, type ApiError } from '../http/errors';

export {
  MAX_SEARCH_CLAUSES,
  OPERATORS,
  type ComparisonOperator,
  type Operator,
  type SearchClause,
  type SearchErrorReason,
  type SearchValue,
  type SubstringOperator,
} from '@canopy/sdk/search';

/** Every search failure is a 400 `parameter` error on `search` that quotes the offending clause. */
export function searchError(reason: SearchErrorReason, clause: string, detail: Record<string, unknown> = {}): ApiError {
  return parameterError('search', reason, { clause, ...detail });
}
