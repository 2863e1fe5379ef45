import React from 'react';
import Head from '@docusaurus/Head';
import type { FallbackParams } from '@docusaurus/ErrorBoundary';
import { ErrorBoundaryError } from '@docusaurus/theme-common';
import Heading from '@theme/Heading';

// Crash fallback inside the layout (a page's content threw while rendering). The title is the
// same bare "Page Error" that Docusaurus's outer fallback (@theme/Error) sets for a crash
// outside the content, so both kinds of crash page read alike.
export default function ErrorPageContent({ error, tryAgain }: FallbackParams): React.ReactNode {
  return (
    <main className="container margin-vert--xl">
      <Head>
        <title>Page Error</title>
      </Head>
      <div className="row">
        <div className="col col--6 col--offset-3">
          <Heading as="h1">This page crashed.</Heading>
          <div className="margin-vert--md">
            <ErrorBoundaryError error={error} />
          </div>
          <button type="button" className="button button--primary" onClick={tryAgain}>
            Try again
          </button>
        </div>
      </div>
    </main>
  );
}
