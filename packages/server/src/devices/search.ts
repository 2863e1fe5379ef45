/**
 * The devices list's `search`. Every field but `tags` goes through the shared compiler; `tags` is
 * a list, and `tags:'east'` means "has the tag east", which the shared compiler (one column
 * compared with one value) cannot say, so those clauses become `'east' = any(tags)` here.
 */
import { sql, type SQL } from 'drizzle-orm';
import { combine } from '../http/pagination';
import { resourceIdFromPrn } from '../core/prn';
import { compileSearch, parseSearch, searchCondition, type SearchClause, type SearchFields } from '../search/search';
// The one error constructor the shared module does not re-export; this file extends the language.
import { searchError } from '../search/syntax';
import { devices } from './schema';

const DATE_OPERATORS = [':', '<', '<=', '>', '>='] as const;

/** Per request, because product and cohort prns resolve only within the caller's organization. */
function deviceSearchFields(organizationId: string): SearchFields {
  return {
    identifier: { column: devices.identifier, type: 'string', operators: [':', '-', '~'] },
    description: { column: devices.description, type: 'string', operators: [':', '-', '~'] },
    target: { column: devices.target, type: 'string', operators: [':', '-', '~'] },
    quarantined: { column: devices.quarantined, type: 'boolean', operators: [':'] },
    archived: { column: devices.archived, type: 'boolean', operators: [':'] },
    product_prn: { column: devices.productId, type: 'prn', operators: [':'], resolve: (prn) => resourceIdFromPrn(prn, 'product', organizationId) },
    cohort_prn: { column: devices.cohortId, type: 'prn', operators: [':'], resolve: (prn) => resourceIdFromPrn(prn, 'cohort', organizationId) },
    inserted_at: { column: devices.insertedAt, type: 'datetime', operators: DATE_OPERATORS },
    updated_at: { column: devices.updatedAt, type: 'datetime', operators: DATE_OPERATORS },
    last_connected_at: { column: devices.lastConnectedAt, type: 'datetime', operators: DATE_OPERATORS },
  };
}

/** `tags:'x'` (has the tag x) or `tags:null` (no tag list at all). */
function tagCondition(clause: SearchClause): SQL {
  if (clause.operator !== ':') throw searchError('operator_not_allowed', clause.text, { field: 'tags', operator: clause.operator, operators: [':'] });
  if (clause.value.kind === 'null') return sql`${devices.tags} is null`;
  if (clause.value.kind !== 'string') throw searchError('invalid_value', clause.text, { field: 'tags', expected: 'string' });
  return sql`${clause.value.text} = any(${devices.tags})`;
}

export function deviceSearchCondition(rawQueryValue: unknown, organizationId: string): SQL | undefined {
  const fields = deviceSearchFields(organizationId);
  // Absent, empty and non-string values mean the same as for every other list.
  if (typeof rawQueryValue !== 'string' || rawQueryValue === '') return searchCondition(rawQueryValue, fields);
  const clauses = parseSearch(rawQueryValue);
  const others = clauses.filter((clause) => clause.field !== 'tags');
  return combine(...clauses.filter((clause) => clause.field === 'tags').map(tagCondition), others.length > 0 ? compileSearch(others, fields) : undefined);
}
