import React from 'react';

interface LoadingComponentProps {
  error?: unknown;
  retry: () => void;
  pastDelay: boolean;
}

// Shown while a lazily loaded page chunk arrives: nothing for the first 200 ms (the loader's
// delay), then a spinner; if the chunk fails, the error text and a Retry button.
export default function Loading({ error, retry, pastDelay }: LoadingComponentProps): React.ReactNode {
  if (error) {
    return (
      <div className="canopy-loading canopy-loading--error" role="alert">
        <p>{String(error)}</p>
        <button type="button" className="button button--primary" onClick={retry}>
          Retry
        </button>
      </div>
    );
  }
  if (pastDelay) {
    return (
      <div className="canopy-loading" aria-busy="true" aria-label="Loading">
        <span className="canopy-spinner" />
      </div>
    );
  }
  return null;
}
