/**
 * The search language's vocabulary comes from the SDK (`@canopy/sdk/search`), which the console
 * and scripts parse with too; the server adds the 400 every search failure answers.
 */
import type { SearchErrorReason } from '@canopy/sdk/search';
import { parameterError, type ApiError } from '../http/errors';

export type * from '@canopy/sdk/search';
export { MAX_SEARCH_CLAUSES, OPERATORS } from '@canopy/sdk/search';

/** Every search failure is a 400 `parameter` error on `search` that quotes the offending clause. */
export function searchError(reason: SearchErrorReason, clause: string, detail: Record<string, unknown> = {}): ApiError {
  return parameterError('search', reason, { clause, ...detail });
}
