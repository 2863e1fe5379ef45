import { listOperations, resolve, type OpenApiDocument, type Schema } from './openapi';

/**
 * The server's OpenAPI documents inline every schema, so the error body and each resource's
 * shape repeat in every operation. This finds the object schemas that occur more than once and
 * names them, so the reference shows each once (in its "Schemas" section) and links to it.
 * Names come from where a schema sits: the property that wraps it (`artifact` in
 * `{"artifact": {...}}`, its items for lists), `Error` for the `{"errors": [...]}` body.
 */
export interface SharedSchemas {
  /** JSON text of a schema -> its name. */
  byKey: Map<string, string>;
  /** Name -> schema, in name order. */
  list: [string, Schema][];
}

const keyOf = (schema: Schema) => JSON.stringify(schema);
const isObject = (s: Schema) => Boolean(s.properties && Object.keys(s.properties).length > 0);

export function anchorOf(name: string): string {
  return `schema-${name.replace(/[^A-Za-z0-9]+/g, '-')}`;
}

export function findSharedSchemas(doc: OpenApiDocument): SharedSchemas {
  const counts = new Map<string, { count: number; names: Map<string, number>; schema: Schema }>();
  const visit = (raw: Schema | undefined, name: string, depth: number) => {
    if (!raw || depth > 6) return;
    const schema = resolve(doc, raw);
    if (isObject(schema)) {
      const key = keyOf(schema);
      const entry = counts.get(key) ?? { count: 0, names: new Map(), schema };
      entry.count++;
      const label = schema.properties!.errors ? 'Error' : name;
      entry.names.set(label, (entry.names.get(label) ?? 0) + 1);
      counts.set(key, entry);
      for (const [prop, child] of Object.entries(schema.properties!)) visit(child, prop, depth + 1);
    }
    if (schema.items) visit(schema.items, name.replace(/s$/, ''), depth + 1);
    for (const alt of [...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])]) visit(alt, name, depth + 1);
  };
  for (const op of listOperations(doc)) {
    visit(op.requestBody?.content?.['application/json']?.schema, `${op.id}_request`, 0);
    for (const res of Object.values(op.responses ?? {})) visit(res.content?.['application/json']?.schema, 'answer', 0);
  }
  const byKey = new Map<string, string>();
  const taken = new Map<string, number>();
  const shared = [...counts.entries()]
    .filter(([, e]) => e.count > 1)
    // Wrappers like {"artifact": {...}} are named after their only property, not shared as such.
    .filter(([, e]) => !(Object.keys(e.schema.properties!).length === 1 && !e.schema.properties!.errors));
  for (const [key, entry] of shared) {
    const best = [...entry.names.entries()].sort((a, b) => b[1] - a[1])[0][0];
    const n = (taken.get(best) ?? 0) + 1;
    taken.set(best, n);
    byKey.set(key, n === 1 ? best : `${best}_${n}`);
  }
  const list = [...byKey.entries()].map(([key, name]) => [name, counts.get(key)!.schema] as [string, Schema]).sort((a, b) => a[0].localeCompare(b[0]));
  return { byKey, list };
}

export function sharedNameOf(shared: SharedSchemas, doc: OpenApiDocument, schema: Schema): string | null {
  const s = resolve(doc, schema);
  return isObject(s) ? (shared.byKey.get(keyOf(s)) ?? null) : null;
}
