import React from 'react';
import { resolve, typeLabel, type Schema } from '@site/src/api/openapi';
import { anchorOf, sharedNameOf } from '@site/src/api/sharedSchemas';
import { useReference } from './context';
import { InlineMarkdown } from './Markdown';

// A schema as a nested list of fields with their types and limits. A schema that several
// operations share is shown once in the Schemas section; here it is a link to it.
function limits(s: Schema): string {
  const parts: string[] = [];
  if (s.minLength !== undefined || s.maxLength !== undefined) parts.push(`length ${s.minLength ?? 0}..${s.maxLength ?? '∞'}`);
  if (s.minimum !== undefined || s.maximum !== undefined) parts.push(`range ${s.minimum ?? '-∞'}..${s.maximum ?? '∞'}`);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  return parts.join(', ');
}

export function SchemaLink({ name }: { name: string }): React.ReactNode {
  return (
    <a className="api-schema-link" href={`#${anchorOf(name)}`}>
      {name}
    </a>
  );
}

export default function SchemaView({ schema, depth = 0, expand = false }: { schema: Schema; depth?: number; expand?: boolean }): React.ReactNode {
  const { doc, shared } = useReference();
  const s = resolve(doc, schema);
  const sharedName = expand ? null : sharedNameOf(shared, doc, s);
  if (sharedName) return <SchemaLink name={sharedName} />;
  const merged: Schema = s.allOf ? Object.assign({}, ...s.allOf.map((x) => resolve(doc, x))) : s;
  const items = merged.items ? resolve(doc, merged.items) : undefined;
  if (items && !merged.properties) {
    const itemName = sharedNameOf(shared, doc, items);
    if (itemName) return <>array of <SchemaLink name={itemName} /></>;
  }
  const props = merged.properties ?? items?.properties;
  if (!props || depth > 3) return <code>{typeLabel(doc, schema)}</code>;
  const required = new Set(merged.required ?? items?.required ?? []);
  return (
    <ul className="api-schema">
      {Object.entries(props).map(([name, child]) => {
        const c = resolve(doc, child);
        const childShared = sharedNameOf(shared, doc, c);
        const nested = c.properties || (c.items && resolve(doc, c.items).properties);
        const note = limits(c);
        return (
          <li key={name}>
            <code>{name}</code> <em>{childShared ? '' : typeLabel(doc, child)}</em>
            {childShared && <SchemaLink name={childShared} />}
            {required.has(name) && <strong> required</strong>}
            {note && <span> ({note})</span>}
            {c.description && (
              <span>
                : <InlineMarkdown text={c.description} />
              </span>
            )}
            {nested && !childShared && <SchemaView schema={child} depth={depth + 1} />}
          </li>
        );
      })}
    </ul>
  );
}
