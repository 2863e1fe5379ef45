import { fetchIndexesByWorker, searchByWorker } from '@easyops-cn/docusaurus-search-local/dist/client/client/theme/searchByWorker';

// Thin wrapper over the local search plugin's web worker: the index is a static file of this
// site, so searching never leaves the browser.

export interface Hit {
  url: string;
  /** Page title, or the heading for a hit on a section. */
  title: string;
  /** Where the hit is: the page title for a heading, a text excerpt for a content match. */
  context?: string;
  /** The whole matched passage, for content hits. */
  text?: string;
}

interface RawResult {
  document: { i: number; t: string; u: string; h?: string };
  type: number;
  page?: { t: string } | false;
}

// Document kinds in the plugin's index.
const TITLE = 0;
const HEADING = 1;
const EXCERPT_CHARS = 140;

const excerpt = (text: string) => (text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS).trimEnd()}…` : text);

export async function warmUp(baseUrl: string): Promise<void> {
  await fetchIndexesByWorker(baseUrl, '');
}

/** Returns up to `limit` hits, best first, one per distinct url. */
export async function search(baseUrl: string, query: string, limit: number): Promise<Hit[]> {
  const raw = (await searchByWorker(baseUrl, '', query, limit)) as RawResult[];
  const seen = new Set<string>();
  const hits: Hit[] = [];
  for (const r of raw) {
    const url = r.document.u + (r.document.h ?? '');
    if (seen.has(url)) continue;
    seen.add(url);
    const pageTitle = r.page ? r.page.t : undefined;
    if (r.type === TITLE) hits.push({ url, title: r.document.t });
    else if (r.type === HEADING) hits.push({ url, title: r.document.t, context: pageTitle });
    else hits.push({ url, title: pageTitle ?? excerpt(r.document.t), context: excerpt(r.document.t), text: r.document.t });
  }
  return hits;
}
