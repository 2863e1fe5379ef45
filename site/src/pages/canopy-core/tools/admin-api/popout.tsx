import React from 'react';
import Layout from '@theme/Layout';
import ApiReference from '@site/src/components/ApiReference';
import doc from '@site/src/api/admin';

// Full-width reference without the docs sidebar, for reading beside a terminal.
export default function AdminApiPopout(): React.ReactNode {
  return (
    <Layout title="Admin API reference" description="Every operation of the Canopy admin API, rendered from its OpenAPI document.">
      <main className="container margin-vert--lg">
        <h1>Admin API reference</h1>
        <ApiReference doc={doc} />
      </main>
    </Layout>
  );
}
