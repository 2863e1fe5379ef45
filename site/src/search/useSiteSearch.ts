import { useEffect, useState } from 'react';
import useDocusaurusContext from '@docusaurus/useDocusaurusContext';
import { search, type Hit } from './engine';

export type SearchState =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'error' }
  | { status: 'done'; hits: Hit[] };

// Upper bound on results counted for "See all {count} results".
export const MAX_HITS = 200;
const DEBOUNCE_MS = 120;

export function useSiteSearch(query: string): SearchState {
  const { siteConfig } = useDocusaurusContext();
  const [state, setState] = useState<SearchState>({ status: 'idle' });
  useEffect(() => {
    const q = query.trim();
    if (!q) {
      setState({ status: 'idle' });
      return undefined;
    }
    let cancelled = false;
    setState({ status: 'loading' });
    const timer = window.setTimeout(() => {
      search(siteConfig.baseUrl, q, MAX_HITS).then(
        (hits) => !cancelled && setState({ status: 'done', hits }),
        () => !cancelled && setState({ status: 'error' }),
      );
    }, DEBOUNCE_MS);
    return () => {
      cancelled = true;
      window.clearTimeout(timer);
    };
  }, [query, siteConfig.baseUrl]);
  return state;
}
