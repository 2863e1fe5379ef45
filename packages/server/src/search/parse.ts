/** The SDK's parser, its syntax errors turned into the server's 400 (syntax.ts). */
import { parseSearch as parseSearchText, SearchSyntaxError } from '@canopy/sdk/search';
import { searchError, type SearchClause } from './syntax';

export function parseSearch(input: string): SearchClause[] {
  try {
    return parseSearchText(input);
  } catch (error) {
    if (error instanceof SearchSyntaxError) throw searchError(error.reason, error.clause, error.detail);
    throw error;
  }
}
