import React from 'react';
import useBrokenLinks from '@docusaurus/useBrokenLinks';
import Heading from '@theme/Heading';
import { resolve, typeLabel, type FlatOperation, type Parameter } from '@site/src/api/openapi';
import { useReference } from './context';
import Markdown, { InlineMarkdown } from './Markdown';
import MethodBadge from './MethodBadge';
import SchemaView from './SchemaView';

/** The error codes an error response documents in its example, e.g. `validation`. */
function exampleCodes(example: unknown): string[] {
  const errors = (example as { errors?: { code?: string }[] } | undefined)?.errors ?? [];
  return errors.map((e) => e.code).filter((c): c is string => Boolean(c));
}

// One operation: method and path, prose, parameters, request body, answers, errors and a
// recorded example call.
export default function OperationView({ op }: { op: FlatOperation }): React.ReactNode {
  const { doc, examples } = useReference();
  // The index links here; tell the build's anchor check this section's id exists.
  useBrokenLinks().collectAnchor(op.id);
  const params = (op.parameters ?? []).map((p) => resolve<Parameter>(doc, p));
  const body = op.requestBody?.content?.['application/json']?.schema;
  const responses = Object.entries(op.responses ?? {});
  const ok = responses.filter(([status]) => /^[23]/.test(status));
  const errors = responses.filter(([status]) => !/^[23]/.test(status));
  const example = examples[`${op.method.toUpperCase()} ${op.path}`];
  return (
    <section className="api-op" id={op.id} data-operation={`${op.method.toUpperCase()} ${op.path}`}>
      <Heading as="h3">
        <MethodBadge method={op.method} /> <code className="api-path">{op.path}</code>
      </Heading>
      {op.summary && (
        <p>
          <strong>{op.summary}</strong>
          {op.deprecated && ' (deprecated)'}
        </p>
      )}
      {op.description && <Markdown text={op.description} />}
      {params.length > 0 && (
        <div className="api-table">
          <table>
            <thead>
              <tr>
                <th>Parameter</th>
                <th>In</th>
                <th>Type</th>
                <th>Description</th>
              </tr>
            </thead>
            <tbody>
              {params.map((p) => (
                <tr key={`${p.in}-${p.name}`}>
                  <td>
                    <code>{p.name}</code>
                    {p.required && ' (required)'}
                  </td>
                  <td>{p.in}</td>
                  <td>{typeLabel(doc, p.schema)}</td>
                  <td>
                    <InlineMarkdown text={p.description ?? ''} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {body && (
        <>
          <p>
            <strong>Request body</strong>
            {op.requestBody?.required ? ' (required)' : ''}
          </p>
          <SchemaView schema={body} />
        </>
      )}
      <p>
        <strong>Answers</strong>
      </p>
      <ul>
        {ok.map(([status, res]) => {
          const schema = res.content?.['application/json']?.schema;
          return (
            <li key={status}>
              <code>{status}</code> <InlineMarkdown text={res.description ?? ''} />
              {schema && <SchemaView schema={schema} />}
            </li>
          );
        })}
      </ul>
      {errors.length > 0 && (
        <>
          <p>
            <strong>Errors</strong> (body: <a href="#schema-Error">Error</a>)
          </p>
          <div className="api-table">
            <table className="api-errors">
              <thead>
                <tr>
                  <th>Status</th>
                  <th>When</th>
                  <th>Example code</th>
                </tr>
              </thead>
              <tbody>
                {errors.map(([status, res]) => {
                  const media = res.content?.['application/json'] as { example?: unknown } | undefined;
                  return (
                    <tr key={status}>
                      <td>
                        <code>{status}</code>
                      </td>
                      <td>
                        <InlineMarkdown text={res.description ?? ''} />
                      </td>
                      <td>
                        {exampleCodes(media?.example).map((c) => (
                          <code key={c}>{c}</code>
                        ))}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
      {example && (
        <details className="api-example">
          <summary>
            Example: <code>{example.method} {example.path}</code> answered <code>{example.status}</code>
          </summary>
          {/* Plain <pre>: highlighting ~80 JSON examples would multiply the page's size. */}
          {example.request != null && (
            <>
              <p>Request body</p>
              <pre className="api-example__code">{JSON.stringify(example.request, null, 2)}</pre>
            </>
          )}
          {example.response != null ? (
            <>
              <p>Answer ({example.status})</p>
              <pre className="api-example__code">{JSON.stringify(example.response, null, 2)}</pre>
            </>
          ) : (
            <p>No body.</p>
          )}
        </details>
      )}
    </section>
  );
}
