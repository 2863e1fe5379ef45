import React from 'react';
import Link from '@docusaurus/Link';
import { listOperations, type OpenApiDocument } from '@site/src/api/openapi';
import OperationView from './OperationView';

// Renders an OpenAPI document read at build time: an index of operations, then each one.
export default function ApiReference({ doc, popoutTo }: { doc: OpenApiDocument; popoutTo?: string }): React.ReactNode {
  const ops = listOperations(doc);
  return (
    <div className="api-reference">
      <p>
        <strong>{doc.info.title}</strong>, version {doc.info.version}
        {doc.servers?.[0] && <> · default server <code>{doc.servers[0].url}</code></>}
        {popoutTo && <> · <Link to={popoutTo}>Open full-width</Link></>}
      </p>
      {doc['x-canopy-placeholder'] && (
        <div className="alert alert--warning margin-bottom--md" role="note">
          This reference is rendered from a placeholder document until the server's generated OpenAPI file is in place.
        </div>
      )}
      <details className="margin-bottom--md">
        <summary>{ops.length} operations</summary>
        <ul>
          {ops.map((op) => (
            <li key={op.id}>
              <a href={`#${op.id}`}>
                <code>{op.method.toUpperCase()} {op.path}</code>
              </a>{' '}
              {op.summary}
            </li>
          ))}
        </ul>
      </details>
      {ops.map((op) => (
        <OperationView key={op.id} doc={doc} op={op} />
      ))}
    </div>
  );
}
