import React from 'react';
import { resolve, typeLabel, type OpenApiDocument, type Schema } from '@site/src/api/openapi';

// A schema as a nested list of fields with their types and limits.
function limits(s: Schema): string {
  const parts: string[] = [];
  if (s.minLength !== undefined || s.maxLength !== undefined) parts.push(`length ${s.minLength ?? 0}..${s.maxLength ?? '∞'}`);
  if (s.minimum !== undefined || s.maximum !== undefined) parts.push(`range ${s.minimum ?? '-∞'}..${s.maximum ?? '∞'}`);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  return parts.join(', ');
}

export default function SchemaView({ doc, schema, depth = 0 }: { doc: OpenApiDocument; schema: Schema; depth?: number }): React.ReactNode {
  const s = resolve(doc, schema);
  const merged: Schema = s.allOf ? Object.assign({}, ...s.allOf.map((x) => resolve(doc, x))) : s;
  const props = merged.properties ?? (merged.items ? resolve(doc, merged.items).properties : undefined);
  if (!props || depth > 3) return <code>{typeLabel(doc, schema)}</code>;
  const required = new Set(merged.required ?? (merged.items ? resolve(doc, merged.items).required : []) ?? []);
  return (
    <ul className="api-schema">
      {Object.entries(props).map(([name, child]) => {
        const c = resolve(doc, child);
        const nested = c.properties || (c.items && resolve(doc, c.items).properties);
        const note = limits(c);
        return (
          <li key={name}>
            <code>{name}</code> <em>{typeLabel(doc, child)}</em>
            {required.has(name) && <strong> required</strong>}
            {note && <span> ({note})</span>}
            {c.description && <span>: {c.description}</span>}
            {nested && <SchemaView doc={doc} schema={child} depth={depth + 1} />}
          </li>
        );
      })}
    </ul>
  );
}
