/**
 * The devices list's search language (site/docs/canopy-core/tools/admin-api.md) as the filter
 * builder edits it: clauses whose values are plain strings, booleans or null. Parsing and
 * formatting are the SDK's (`@canopy/sdk/search`), the one parser the server uses too; the
 * builder and the raw text box are each derived from the other, so a filter can be copied into a
 * script. The server stays the judge of fields and types: text that parses may still answer 400,
 * which the fleet view shows.
 */
import { formatSearch as formatSearchText, parseSearch as parseSearchText, type Operator, type SearchValue } from '@canopy/sdk/search';

export { SearchSyntaxError, type Operator } from '@canopy/sdk/search';

export type ClauseValue = string | boolean | null;

export interface Clause {
  field: string;
  operator: Operator;
  value: ClauseValue;
}

export interface FieldSpec {
  field: string;
  label: string;
  kind: 'string' | 'boolean' | 'prn' | 'datetime' | 'tag' | 'status';
  operators: Operator[];
}

/** The fields the devices search accepts (packages/server/src/devices/search.ts). */
export const DEVICE_FIELDS: FieldSpec[] = [
  { field: 'identifier', label: 'Identifier', kind: 'string', operators: [':', '~', '-'] },
  { field: 'description', label: 'Description', kind: 'string', operators: [':', '~', '-'] },
  { field: 'tags', label: 'Tag', kind: 'tag', operators: [':'] },
  { field: 'target', label: 'Target', kind: 'string', operators: [':', '~', '-'] },
  { field: 'quarantined', label: 'Quarantined', kind: 'boolean', operators: [':'] },
  { field: 'archived', label: 'Archived', kind: 'boolean', operators: [':'] },
  { field: 'product_prn', label: 'Product', kind: 'prn', operators: [':'] },
  { field: 'cohort_prn', label: 'Cohort', kind: 'prn', operators: [':'] },
  { field: 'reported_release_prn', label: 'Release', kind: 'prn', operators: [':', '-'] },
  { field: 'online', label: 'Online', kind: 'boolean', operators: [':'] },
  { field: 'update_status', label: 'Update state', kind: 'status', operators: [':'] },
  { field: 'last_connected_at', label: 'Last connected', kind: 'datetime', operators: ['<', '<=', '>', '>=', ':'] },
  { field: 'inserted_at', label: 'Created', kind: 'datetime', operators: ['<', '<=', '>', '>=', ':'] },
];

export const OPERATOR_LABELS: Record<Operator, string> = { ':': 'is', '-': 'is not', '~': 'contains', '<': 'before', '<=': 'at or before', '>': 'after', '>=': 'at or after' };

function toSearchValue(value: ClauseValue): SearchValue {
  if (value === null) return { kind: 'null' };
  if (typeof value === 'boolean') return { kind: 'boolean', value };
  return { kind: 'string', text: value };
}

/** A number is edited as text, so it comes back quoted, as the builder's fields are all text. */
function fromSearchValue(value: SearchValue): ClauseValue {
  if (value.kind === 'null') return null;
  if (value.kind === 'boolean') return value.value;
  return value.text;
}

export function formatSearch(clauses: readonly Clause[]): string {
  return formatSearchText(clauses.map((c) => ({ field: c.field, operator: c.operator, value: toSearchValue(c.value) })));
}

/** Text -> clauses; throws SearchSyntaxError naming the clause that does not parse. Blank text is no filter. */
export function parseSearch(input: string): Clause[] {
  if (input.trim() === '') return [];
  return parseSearchText(input).map((c) => ({ field: c.field, operator: c.operator, value: fromSearchValue(c.value) }));
}

/** The statuses `update_status` takes (a device's latest update report). */
export const UPDATE_STATUSES = ['downloading', 'installing', 'rebooting', 'installed', 'failed', 'rolled_back'];

/**
 * Text typed as a plain search box would take it (`gw-alpha`, `gateway east`): no quote and no
 * operator but `-`, which the language refuses as a malformed clause. Read as "identifier
 * contains"; null for anything that looks like the language, whose error is worth showing.
 */
export function freeText(input: string): Clause[] | null {
  const text = input.trim();
  if (text === '' || /['":~<>]/.test(text)) return null;
  try {
    parseSearch(text);
    return null;
  } catch {
    return [{ field: 'identifier', operator: '~', value: text }];
  }
}

/** `search` with `clause` in place of any condition on the same field (a count chip's filter). */
export function withClause(search: string, clause: string): string {
  const added = parseSearch(clause);
  let current: Clause[];
  try {
    current = parseSearch(search);
  } catch {
    current = [];
  }
  const fields = new Set(added.map((c) => c.field));
  return formatSearch([...current.filter((c) => !fields.has(c.field)), ...added]);
}
