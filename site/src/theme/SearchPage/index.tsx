import React, { useEffect, useState } from 'react';
import Layout from '@theme/Layout';
import Link from '@docusaurus/Link';
import { useHistory, useLocation } from '@docusaurus/router';
import { NoResults, SearchFailed } from '@site/src/search/SearchMessages';
import { useSiteSearch } from '@site/src/search/useSiteSearch';

// The /search page: the query lives in ?q= so results can be linked and bookmarked.
export default function SearchPage(): React.ReactNode {
  const location = useLocation();
  const history = useHistory();
  // The static page was rendered without a query: start from the same empty query so hydration
  // matches, then read ?q= in an effect.
  const [query, setQuery] = useState('');
  const state = useSiteSearch(query);

  useEffect(() => {
    const q = new URLSearchParams(location.search).get('q') ?? '';
    setQuery(q);
  }, [location.search]);

  const update = (q: string) => {
    setQuery(q);
    history.replace({ search: q ? `?q=${encodeURIComponent(q)}` : '' });
  };

  return (
    <Layout title={query ? `Search results for "${query}"` : 'Search'} description="Search the Canopy documentation.">
      <main className="container margin-vert--lg">
        <h1>{query ? `Search results for “${query}”` : 'Search the documentation'}</h1>
        <input
          type="search"
          className="search-page-input"
          aria-label="Search docs"
          placeholder="Search docs"
          value={query}
          onChange={(e) => update(e.target.value)}
        />
        {state.status === 'loading' && <p>Searching...</p>}
        {state.status === 'error' && <SearchFailed />}
        {state.status === 'done' && state.hits.length === 0 && <NoResults query={query.trim()} onSuggest={update} />}
        {state.status === 'done' && state.hits.length > 0 && (
          <>
            <p>{state.hits.length === 1 ? '1 document found' : `${state.hits.length} documents found`}</p>
            <ol className="search-page-results">
              {state.hits.map((hit) => (
                <li key={hit.url}>
                  <span className="search-section">{hit.section}</span>
                  <Link to={hit.url}>{hit.title}</Link>
                  {hit.context && <div className="search-page-parent">{hit.context}</div>}
                </li>
              ))}
            </ol>
          </>
        )}
      </main>
    </Layout>
  );
}
