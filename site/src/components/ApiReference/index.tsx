import React, { useMemo } from 'react';
import Heading from '@theme/Heading';
import Link from '@docusaurus/Link';
import { listOperations, type OpenApiDocument } from '@site/src/api/openapi';
import { anchorOf, findSharedSchemas } from '@site/src/api/sharedSchemas';
import { Reference, type ApiExample } from './context';
import OperationIndex, { groupByTag, tagAnchor, tagTitle } from './OperationIndex';
import OperationView from './OperationView';
import SchemaView from './SchemaView';
import ServerRendered from '@site/src/components/ServerRendered';

interface Props {
  doc: OpenApiDocument;
  popoutTo?: string;
  examples?: Record<string, ApiExample>;
}

/**
 * The reference is rendered when the site is built and kept as HTML in the browser, which never
 * loads the OpenAPI document (ServerRendered, src/plugins/apiDocumentsServerOnly.ts).
 */
export default function ApiReference(props: Props): React.ReactNode {
  return (
    <ServerRendered id="api-reference">
      <ApiReferenceBody {...props} />
    </ServerRendered>
  );
}

/**
 * Renders an OpenAPI document read at build time. With `popoutTo` (the docs page) it shows the
 * index of every operation, grouped by resource, linking into the full reference on that page;
 * without (the popout page) the index, then each resource's operations, then the shared schemas.
 */
function ApiReferenceBody({ doc, popoutTo, examples = {} }: Props): React.ReactNode {
  const ops = listOperations(doc);
  const shared = useMemo(() => findSharedSchemas(doc), [doc]);
  const header = (
    <p>
      <strong>{doc.info.title}</strong>, version {doc.info.version}
      {doc.servers?.[0] && (
        <>
          {' '}
          · default server <code>{doc.servers[0].url}</code>
        </>
      )}
    </p>
  );
  if (popoutTo) {
    return (
      <div className="api-reference">
        {header}
        <p>
          {ops.length} operations, grouped by resource. Each links to its full description, with parameters, request and
          answer schemas, errors and a recorded example, on the <Link to={popoutTo}>full reference page</Link>.
        </p>
        <OperationIndex ops={ops} base={popoutTo} />
      </div>
    );
  }
  return (
    <Reference.Provider value={{ doc, shared, examples }}>
      <div className="api-reference">
        {header}
        <OperationIndex ops={ops} />
        {groupByTag(ops).map(([tag, group]) => (
          <section key={tag} className="api-tag">
            <Heading as="h2" id={tagAnchor(tag)}>
              {tagTitle(tag)}
            </Heading>
            {group.map((op) => (
              <OperationView key={op.id} op={op} />
            ))}
          </section>
        ))}
        <section className="api-schemas">
          <Heading as="h2" id="schemas">
            Schemas
          </Heading>
          <p>Shapes that several operations share, shown once.</p>
          {shared.list.map(([name, schema]) => (
            <div key={name} className="api-schema-def">
              <Heading as="h3" id={anchorOf(name)}>
                {name}
              </Heading>
              <SchemaView schema={schema} expand />
            </div>
          ))}
        </section>
      </div>
    </Reference.Provider>
  );
}
