/**
 * Printing answers: JSON (the API's own shape, for scripts and jq) by default; `--output table`
 * lays out the items of a list, or the fields of one resource, for people.
 */
export type OutputFormat = 'json' | 'table';

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The item(s) of an answer: `{"artifact": {...}}` -> [artifact]; `{"artifacts": [...], next_page}` -> the list. */
function rowsOf(answer: unknown): { rows: Record<string, unknown>[]; isList: boolean } | null {
  if (Array.isArray(answer)) return { rows: answer as Record<string, unknown>[], isList: true };
  if (!answer || typeof answer !== 'object') return null;
  const entries = Object.entries(answer as Record<string, unknown>).filter(([key]) => key !== 'next_page');
  if (entries.length === 1) {
    const [, value] = entries[0];
    if (Array.isArray(value)) return { rows: value as Record<string, unknown>[], isList: true };
    if (value && typeof value === 'object') return { rows: [value as Record<string, unknown>], isList: false };
  }
  return { rows: [answer as Record<string, unknown>], isList: false };
}

export function renderTable(answer: unknown): string {
  const found = rowsOf(answer);
  if (!found) return `${cell(answer)}\n`;
  const { rows, isList } = found;
  if (rows.length === 0) return '(none)\n';
  if (!isList) {
    // One resource: a two-column field/value listing reads better than a very wide row.
    const [row] = rows;
    const width = Math.max(...Object.keys(row).map((k) => k.length));
    return Object.entries(row).map(([key, value]) => `${key.padEnd(width)}  ${cell(value)}`).join('\n') + '\n';
  }
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))].filter((key) => rows.some((row) => typeof row[key] !== 'object' || row[key] === null));
  const widths = columns.map((key) => Math.min(60, Math.max(key.length, ...rows.map((row) => cell(row[key]).length))));
  const line = (values: string[]) => values.map((v, i) => (v.length > widths[i] ? `${v.slice(0, widths[i] - 1)}…` : v.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((row) => line(columns.map((c) => cell(row[c]))))].join('\n') + '\n';
}

export function render(answer: unknown, format: OutputFormat): string {
  if (answer === undefined) return '';
  return format === 'table' ? renderTable(answer) : `${JSON.stringify(answer, null, 2)}\n`;
}
