// Pure parts of the page-view analytics, kept apart from the browser glue so they can be tested.

export interface RouteLocation {
  pathname: string;
  search: string;
  hash: string;
}

export interface PageView {
  type: 'page_view';
  path: string;
  query: string;
  hash: string;
  title: string;
  referrer: string;
  anonymize_ip: true;
}

/** A view is counted on first load and whenever the path, the query or the hash changes. */
export function isNewView(location: RouteLocation, previous: RouteLocation | null | undefined): boolean {
  return (
    !previous ||
    previous.pathname !== location.pathname ||
    previous.search !== location.search ||
    previous.hash !== location.hash
  );
}

export function pageView(location: RouteLocation, previous: RouteLocation | null | undefined, title: string, documentReferrer: string): PageView {
  return {
    type: 'page_view',
    path: location.pathname,
    query: location.search,
    hash: location.hash,
    title,
    referrer: previous ? previous.pathname : documentReferrer,
    anonymize_ip: true,
  };
}
