/**
 * Parameter arrays in fixed-text named statements (a group's values as one array per column).
 *
 * Each array goes in as a scalar subquery, `(select $n::type[])`, never as a bare `$n::type[]`.
 * With a bare array PostgreSQL plans every execution afresh: a named statement's first executions
 * get custom plans that know the arrays' lengths, those look cheaper than the generic plan, and
 * so the generic plan is never chosen. Planning a grouped statement costs more than running it
 * (measured 0.6-2 ms per execution). Behind a subquery the estimates are the same whatever the
 * arrays hold, so the generic plan wins and the statement is planned once per connection.
 */
export function arrayParameter(index: number, type: string): string {
  return `(select $${index}::${type}[])`;
}

/**
 * The element type of a column whose parameter is ONE JSON array of the column's values (jsonb),
 * not a PostgreSQL array: event data, JSON already, would otherwise be written into an array
 * literal with every quote escaped, and parsed back out of it.
 */
export const JSON_ELEMENTS = 'json_elements';

/**
 * The rows of consecutive parameters from `$first`, one column per type, each an array
 * (arrayParameter) or, for JSON_ELEMENTS, a JSON array; zipped in order, as `unnest(a, b)` does.
 */
export function unnestParameters(first: number, types: readonly string[]): string {
  const columns = types.map((type, i) =>
    type === JSON_ELEMENTS ? `jsonb_array_elements((select $${first + i}::jsonb))` : `unnest(${arrayParameter(first + i, type)})`,
  );
  return `rows from (${columns.join(', ')})`;
}

/** Types whose values (ids, numbers) never hold a character an array literal must quote. */
const UNQUOTED = new Set(['uuid', 'int', 'int8', 'float8']);
const NEEDS_ESCAPE = /["\\]/;

function quoted(value: string): string {
  return NEEDS_ESCAPE.test(value) ? `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"` : `"${value}"`;
}

/**
 * The parameter for one column of `type` (see unnestParameters), written here rather than by
 * node-postgres, whose generic array writer runs two regular-expression replaces on every
 * element: ids and numbers go unquoted, text is escaped only where it holds a quote or backslash,
 * and JSON_ELEMENTS values are one JSON.stringify (PostgreSQL then parses one JSON text, not an
 * escaped array of them). On the kept-alive update checks of bench/compare-bundles.ts this took
 * the median round from 8.6k to 9.6k checks/s, with less CPU per check in both processes. Values
 * of the unquoted types must be what they say (ids this server read or made, numbers), never
 * text from a client.
 */
export function parameterArray(type: string, values: readonly unknown[]): string {
  if (type === JSON_ELEMENTS) return JSON.stringify(values);
  const unquoted = UNQUOTED.has(type);
  const elements = values.map((value) => (value === null || value === undefined ? 'NULL' : unquoted ? String(value) : quoted(String(value))));
  return `{${elements.join(',')}}`;
}

/** parameterArray for each column, in order: the values for unnestParameters over the same `types`. */
export function parameterArrays(types: readonly string[], columns: readonly (readonly unknown[])[]): string[] {
  if (types.length !== columns.length) throw new Error(`parameterArrays: ${columns.length} columns for ${types.length} types`);
  return columns.map((values, i) => parameterArray(types[i], values));
}
