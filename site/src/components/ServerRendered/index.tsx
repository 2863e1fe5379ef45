import React, { useEffect, useState } from 'react';
import ExecutionEnvironment from '@docusaurus/ExecutionEnvironment';
import useIsBrowser from '@docusaurus/useIsBrowser';
import { useLocation } from '@docusaurus/router';

/**
 * Content rendered once, when the site is built, and never again in the browser: the API
 * reference, whose data (the OpenAPI documents) only the server bundle has
 * (src/plugins/apiDocumentsServerOnly.ts).
 *
 * - Building the HTML: renders its children.
 * - Hydrating that HTML in the browser: an element with an empty `dangerouslySetInnerHTML`,
 *   which React leaves as it is, so the built markup stays and no data is needed.
 * - Reached by client-side navigation (no built markup on the page yet): fetches the page's
 *   built HTML and takes this element's markup from it, by `id`. If that fails (offline), it
 *   offers a full load of the page.
 */
export default function ServerRendered({ id, children }: { id: string; children: React.ReactNode }): React.ReactNode {
  const isBrowser = useIsBrowser();
  // Decided at the first render: hydration happens before useIsBrowser turns true.
  const [mode] = useState<'build' | 'hydrated' | 'navigated'>(() =>
    !ExecutionEnvironment.canUseDOM ? 'build' : isBrowser ? 'navigated' : 'hydrated',
  );
  // The markup React is told about is the markup already there, so hydration finds nothing to
  // change (an empty one would make React 19 empty the element).
  const [built] = useState(() => (mode === 'hydrated' ? (document.getElementById(id)?.innerHTML ?? '') : ''));
  if (mode === 'build') return <div id={id}>{children}</div>;
  if (mode === 'hydrated') return <div id={id} dangerouslySetInnerHTML={{ __html: built }} suppressHydrationWarning />;
  return <FetchedMarkup id={id} />;
}

function FetchedMarkup({ id }: { id: string }): React.ReactNode {
  const { pathname, hash } = useLocation();
  const [markup, setMarkup] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let cancelled = false;
    fetch(pathname)
      .then((res) => (res.ok ? res.text() : Promise.reject(new Error(String(res.status)))))
      .then((html) => {
        const built = new DOMParser().parseFromString(html, 'text/html').getElementById(id);
        if (!built) throw new Error('no markup');
        if (!cancelled) setMarkup(built.innerHTML);
      })
      .catch(() => !cancelled && setFailed(true));
    return () => {
      cancelled = true;
    };
  }, [pathname, id]);
  useEffect(() => {
    if (markup && hash) document.getElementById(decodeURIComponent(hash.slice(1)))?.scrollIntoView();
  }, [markup, hash]);
  if (markup !== null) return <div id={id} dangerouslySetInnerHTML={{ __html: markup }} />;
  return (
    <div id={id}>
      {failed ? (
        <p>
          The reference could not be loaded. <a href={pathname + hash}>Load the page again</a>.
        </p>
      ) : (
        <p>Loading the reference…</p>
      )}
    </div>
  );
}
