import React from 'react';
import Layout from '@theme/Layout';
import ApiReference from '@site/src/components/ApiReference';
import doc from '@site/src/api/device';

// Full-width reference without the docs sidebar, for reading beside a terminal.
export default function DeviceApiPopout(): React.ReactNode {
  return (
    <Layout title="Device API reference" description="Every operation of the Canopy device API, rendered from its OpenAPI document.">
      <main className="container margin-vert--lg">
        <h1>Device API reference</h1>
        <ApiReference doc={doc} />
      </main>
    </Layout>
  );
}
