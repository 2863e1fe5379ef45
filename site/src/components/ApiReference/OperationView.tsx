import React from 'react';
import Heading from '@theme/Heading';
import { resolve, typeLabel, type FlatOperation, type OpenApiDocument, type Parameter } from '@site/src/api/openapi';
import SchemaView from './SchemaView';

// One operation: method and path, prose, parameters, request body and responses.
export default function OperationView({ doc, op }: { doc: OpenApiDocument; op: FlatOperation }): React.ReactNode {
  const params = (op.parameters ?? []).map((p) => resolve<Parameter>(doc, p));
  const body = op.requestBody?.content?.['application/json']?.schema;
  return (
    <section className="api-op" id={op.id} data-operation={`${op.method.toUpperCase()} ${op.path}`}>
      <Heading as="h3">
        <span className="api-method">{op.method}</span> <code>{op.path}</code>
      </Heading>
      {op.summary && <p><strong>{op.summary}</strong>{op.deprecated && ' (deprecated)'}</p>}
      {op.description && <p>{op.description}</p>}
      {params.length > 0 && (
        <table>
          <thead>
            <tr><th>Parameter</th><th>In</th><th>Type</th><th>Description</th></tr>
          </thead>
          <tbody>
            {params.map((p) => (
              <tr key={`${p.in}-${p.name}`}>
                <td><code>{p.name}</code>{p.required && ' (required)'}</td>
                <td>{p.in}</td>
                <td>{typeLabel(doc, p.schema)}</td>
                <td>{p.description ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {body && (
        <>
          <p><strong>Request body</strong>{op.requestBody?.required ? ' (required)' : ''}</p>
          <SchemaView doc={doc} schema={body} />
        </>
      )}
      <p><strong>Responses</strong></p>
      <ul>
        {Object.entries(op.responses ?? {}).map(([status, res]) => {
          const schema = res.content?.['application/json']?.schema;
          return (
            <li key={status}>
              <code>{status}</code> {res.description}
              {schema && <SchemaView doc={doc} schema={schema} />}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
