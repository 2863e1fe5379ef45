/**
 * The devices list's search language (site/docs/canopy-core/tools/admin-api.md), in the browser:
 * clauses joined by ` and `, each `field operator value`, a value quoted with `'` (only `\'` and
 * `\\` escaped) or bare `true`, `false`, `null` or a number. The filter builder edits clauses; the
 * raw text box edits the text; each is derived from the other, so a filter can be copied into a
 * script. The server stays the judge of fields and types: text this parser accepts may still
 * answer 400, which the fleet view shows.
 */

export type Operator = ':' | '-' | '~' | '<' | '<=' | '>' | '>=';
export type ClauseValue = string | boolean | null;

export interface Clause {
  field: string;
  operator: Operator;
  value: ClauseValue;
}

export interface FieldSpec {
  field: string;
  label: string;
  kind: 'string' | 'boolean' | 'prn' | 'datetime' | 'tag';
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
  { field: 'last_connected_at', label: 'Last connected', kind: 'datetime', operators: ['<', '<=', '>', '>=', ':'] },
  { field: 'inserted_at', label: 'Created', kind: 'datetime', operators: ['<', '<=', '>', '>=', ':'] },
];

export const OPERATOR_LABELS: Record<Operator, string> = { ':': 'is', '-': 'is not', '~': 'contains', '<': 'before', '<=': 'at or before', '>': 'after', '>=': 'at or after' };

export function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export function formatValue(value: ClauseValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  return quote(value);
}

export function formatSearch(clauses: readonly Clause[]): string {
  return clauses.map((c) => `${c.field}${c.operator}${formatValue(c.value)}`).join(' and ');
}

export class SearchSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly clause: string,
  ) {
    super(`${reason}: ${clause}`);
  }
}

/** Cuts at ` and ` outside quotes (whitespace either side), as the server does. */
function splitClauses(input: string): string[] {
  const clauses: string[] = [];
  let start = 0;
  let inQuote = false;
  for (let i = 0; i < input.length; i++) {
    const char = input[i];
    if (inQuote) {
      if (char === '\\') i++;
      else if (char === "'") inQuote = false;
      continue;
    }
    if (char === "'") inQuote = true;
    else if (/\s/.test(char)) {
      const match = /^\s+and\s+/i.exec(input.slice(i));
      if (match && match[0].toLowerCase().includes('and')) {
        clauses.push(input.slice(start, i).trim());
        i += match[0].length - 1;
        start = i + 1;
      }
    }
  }
  clauses.push(input.slice(start).trim());
  return clauses;
}

function parseValue(text: string, clause: string): ClauseValue {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (/^-?\d+(?:\.\d+)?$/.test(text)) return text;
  if (!text.startsWith("'")) throw new SearchSyntaxError('unquoted_value', clause);
  let out = '';
  for (let i = 1; i < text.length; i++) {
    const char = text[i];
    if (char === "'") {
      if (i !== text.length - 1) throw new SearchSyntaxError('text_after_value', clause);
      return out;
    }
    if (char === '\\') {
      const next = text[i + 1];
      if (next !== "'" && next !== '\\') throw new SearchSyntaxError('invalid_escape', clause);
      out += next;
      i++;
    } else out += char;
  }
  throw new SearchSyntaxError('unterminated_string', clause);
}

/** Text -> clauses; throws SearchSyntaxError naming the clause that does not parse. */
export function parseSearch(input: string): Clause[] {
  const trimmed = input.trim();
  if (trimmed === '') return [];
  return splitClauses(trimmed).map((text) => {
    const match = /^([a-z][a-z0-9_]*)\s*(<=|>=|:|-|~|<|>)\s*(.*)$/s.exec(text);
    if (!match) throw new SearchSyntaxError('malformed_clause', text);
    return { field: match[1], operator: match[2] as Operator, value: parseValue(match[3], text) };
  });
}
