/**
 * The `search` query parameter of every admin list (site/docs/canopy-core/tools/admin-api.mdx,
 * "Lists, pagination and search"), as one module: routes import from here, never from the other
 * files of search/.
 *
 *   const where = combine(eq(devices.organizationId, orgId), searchCondition(query.search, DEVICE_SEARCH));
 */
import type { SQL } from 'drizzle-orm';
import { compileSearch } from './compile';
import type { SearchFields } from './fields';
import { parseSearch } from './parse';
import { searchError } from './syntax';

export { compileSearch, escapeLike } from './compile';
export type {
  BooleanSearchField,
  DateTimeSearchField,
  NumberSearchField,
  PrnSearchField,
  SearchColumn,
  SearchField,
  SearchFieldType,
  SearchFields,
  StringSearchField,
} from './fields';
export { formatClause, formatSearch, formatValue } from '@canopy/sdk/search';
export { parseSearch } from './parse';
export * from './syntax';

/**
 * The WHERE condition for a request's raw `search` value, or undefined when it has none.
 * An empty value counts as none, as an empty `page` does, so a client may always send the
 * parameter; whitespace alone is a mistake and a 400 `empty`.
 */
export function searchCondition(rawQueryValue: unknown, fields: SearchFields): SQL | undefined {
  if (rawQueryValue === undefined || rawQueryValue === null || rawQueryValue === '') return undefined;
  // A repeated `?search=` arrives as an array; say so rather than guess which one was meant.
  if (typeof rawQueryValue !== 'string') throw searchError('not_a_string', '');
  return compileSearch(parseSearch(rawQueryValue), fields);
}
