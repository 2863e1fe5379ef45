import React from 'react';
import type { FallbackParams } from '@docusaurus/ErrorBoundary';
import { ErrorBoundaryError } from '@docusaurus/theme-common';
import Heading from '@theme/Heading';

// Crash fallback. The surrounding @theme/Error sets the document title to "Page Error".
export default function ErrorPageContent({ error, tryAgain }: FallbackParams): React.ReactNode {
  return (
    <main className="container margin-vert--xl">
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
