import React from 'react';
import Link from '@docusaurus/Link';

// The spec's wording for empty and failed searches, shared by the modal and the search page.
export const SUGGESTIONS = ['releases', 'webhooks', 'provision', 'tunnels'];

export function NoResults({ query, onSuggest }: { query: string; onSuggest: (q: string) => void }): React.ReactNode {
  return (
    <div className="search-message">
      <p>
        No results found for <strong>&ldquo;{query}&rdquo;</strong>
      </p>
      <p>Try searching for</p>
      <ul className="search-suggestions">
        {SUGGESTIONS.map((s) => (
          <li key={s}>
            <button type="button" className="search-suggestion" onClick={() => onSuggest(s)}>
              {s}
            </button>
          </li>
        ))}
      </ul>
      <p>
        Believe this query should return results? <Link to="/avocado-os/community">Let us know.</Link>
      </p>
    </div>
  );
}

export function SearchFailed(): React.ReactNode {
  return (
    <div className="search-message" role="alert">
      <p>
        <strong>Unable to fetch results</strong>
      </p>
      <p>You might want to check your network connection.</p>
    </div>
  );
}
