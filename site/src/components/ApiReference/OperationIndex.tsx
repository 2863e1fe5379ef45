import React from 'react';
import Link from '@docusaurus/Link';
import type { FlatOperation } from '@site/src/api/openapi';
import MethodBadge from './MethodBadge';

/** Operations grouped by their first OpenAPI tag (the resource), groups in alphabetical order. */
export function groupByTag(ops: FlatOperation[]): [string, FlatOperation[]][] {
  const groups = new Map<string, FlatOperation[]>();
  for (const op of ops) {
    const tag = op.tags?.[0] ?? 'other';
    groups.set(tag, [...(groups.get(tag) ?? []), op]);
  }
  return [...groups.entries()].sort((a, b) => a[0].localeCompare(b[0]));
}

export const tagTitle = (tag: string) => tag.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
export const tagAnchor = (tag: string) => `tag-${tag.replace(/[^a-zA-Z0-9]+/g, '-')}`;

// Every operation, grouped by resource. `base` is the page the anchors live on ('' for this one).
export default function OperationIndex({ ops, base = '' }: { ops: FlatOperation[]; base?: string }): React.ReactNode {
  return (
    <nav className="api-index" aria-label="Operations">
      {groupByTag(ops).map(([tag, group]) => (
        <div key={tag} className="api-index__group">
          <p className="api-index__tag">
            <Link to={`${base}#${tagAnchor(tag)}`}>{tagTitle(tag)}</Link>
          </p>
          <ul>
            {group.map((op) => (
              <li key={op.id}>
                <Link to={`${base}#${op.id}`}>
                  <MethodBadge method={op.method} /> <code>{op.path}</code>
                </Link>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}
