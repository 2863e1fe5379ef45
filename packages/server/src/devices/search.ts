/**
 * The devices list's `search`. Every field but `tags`, `online` and `update_status` goes through
 * the shared compiler; those say what one column compared with one value cannot: `tags:'east'`
 * (has the tag: `'east' = any(tags)`), `online:true` (communicated within the online window, as
 * the counts say) and `update_status:'failed'` (the device's latest update report has it).
 */
import { sql, type SQL } from 'drizzle-orm';
import { combine } from '../http/pagination';
import { resourceIdFromPrn } from '../core/prn';
import { compileSearch, parseSearch, searchCondition, type SearchClause, type SearchFields } from '../search/search';
// The one error constructor the shared module does not re-export; this file extends the language.
import { searchError } from '../search/syntax';
import { devices } from './schema';
import { ONLINE_WINDOW_SECONDS } from './online';
import { UPDATE_REPORT_STATUSES } from '../update-reports/schema';

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
    reported_release_prn: { column: devices.reportedReleasePrn, type: 'string', operators: [':', '-'] },
  };
}

/** `tags:'x'` (has the tag x) or `tags:null` (no tag list at all). */
function tagCondition(clause: SearchClause): SQL {
  if (clause.operator !== ':') throw searchError('operator_not_allowed', clause.text, { field: 'tags', operator: clause.operator, operators: [':'] });
  if (clause.value.kind === 'null') return sql`${devices.tags} is null`;
  if (clause.value.kind !== 'string') throw searchError('invalid_value', clause.text, { field: 'tags', expected: 'string' });
  return sql`${clause.value.text} = any(${devices.tags})`;
}

/** `online:true` / `online:false`: communicated within ONLINE_WINDOW_SECONDS, or not (never included). */
function onlineCondition(clause: SearchClause): SQL {
  if (clause.operator !== ':') throw searchError('operator_not_allowed', clause.text, { field: 'online', operator: clause.operator, operators: [':'] });
  if (clause.value.kind !== 'boolean') throw searchError('invalid_value', clause.text, { field: 'online', expected: 'boolean' });
  const online = sql`${devices.lastConnectedAt} > now() - make_interval(secs => ${ONLINE_WINDOW_SECONDS})`;
  return clause.value.value ? online : sql`not coalesce(${online}, false)`;
}

/** `update_status:'failed'`: the status of the device's most recent update report (any release); `:null` for none. */
function updateStatusCondition(clause: SearchClause): SQL {
  if (clause.operator !== ':') throw searchError('operator_not_allowed', clause.text, { field: 'update_status', operator: clause.operator, operators: [':'] });
  const latest = sql`(select r.status from device_update_reports r where r.device_id = ${devices.id} order by r.updated_at desc, r.id desc limit 1)`;
  if (clause.value.kind === 'null') return sql`${latest} is null`;
  if (clause.value.kind !== 'string' || !(UPDATE_REPORT_STATUSES as readonly string[]).includes(clause.value.text))
    throw searchError('invalid_value', clause.text, { field: 'update_status', expected: UPDATE_REPORT_STATUSES.join(', ') });
  return sql`${latest} = ${clause.value.text}`;
}

const CUSTOM: Record<string, (clause: SearchClause) => SQL> = { tags: tagCondition, online: onlineCondition, update_status: updateStatusCondition };

export function deviceSearchCondition(rawQueryValue: unknown, organizationId: string): SQL | undefined {
  const fields = deviceSearchFields(organizationId);
  // Absent, empty and non-string values mean the same as for every other list.
  if (typeof rawQueryValue !== 'string' || rawQueryValue === '') return searchCondition(rawQueryValue, fields);
  const clauses = parseSearch(rawQueryValue);
  const others = clauses.filter((clause) => !(clause.field in CUSTOM));
  return combine(...clauses.filter((clause) => clause.field in CUSTOM).map((clause) => CUSTOM[clause.field](clause)), others.length > 0 ? compileSearch(others, fields) : undefined);
}
