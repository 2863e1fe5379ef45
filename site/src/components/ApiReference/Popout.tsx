import React from 'react';
import Layout from '@theme/Layout';
import ApiReference from '@site/src/components/ApiReference';
import type { OpenApiDocument } from '@site/src/api/openapi';
import type { ApiExample } from './context';

const TITLES = { admin: 'Admin', device: 'Device' } as const;

// Full-width reference without the docs sidebar, for reading beside a terminal. One page per API
// (src/pages/canopy-core/tools/<api>-api/popout.tsx) renders this with its OpenAPI document.
export default function ApiPopout({ api, doc, examples }: { api: keyof typeof TITLES; doc: OpenApiDocument; examples?: Record<string, ApiExample> }): React.ReactNode {
  const title = `${TITLES[api]} API reference`;
  return (
    <Layout title={title} description={`Every operation of the Canopy ${api} API, rendered from its OpenAPI document.`}>
      <main className="container margin-vert--lg">
        <h1>{title}</h1>
        <ApiReference doc={doc} examples={examples} />
      </main>
    </Layout>
  );
}
