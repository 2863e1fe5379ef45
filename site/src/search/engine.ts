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
  /** Where the page sits in the site ("Canopy Core › Tools › canopy CLI › artifacts"), so hits
   * with the same title (every CLI "create") can be told apart. */
  section: string;
}

const PRODUCT_LABELS: Record<string, string> = {
  overview: 'Overview',
  'avocado-os': 'Avocado OS',
  'canopy-core': 'Canopy Core',
  hardware: 'Hardware',
  solutions: 'Solutions',
  policies: 'Policies',
};
const WORD_LABELS: Record<string, string> = { 'canopy-cli': 'canopy CLI', 'avocado-cli': 'avocado CLI', 'canopy-daemon': 'canopy daemon', api: 'API', sdk: 'SDK' };

/** The section of a page from its path: the product, then the folders above the page. */
export function sectionOf(url: string): string {
  const parts = url.split(/[?#]/)[0].split('/').filter(Boolean);
  const [product, ...rest] = parts;
  const folders = rest.slice(0, -1).map((p) => WORD_LABELS[p] ?? p.replace(/-/g, ' ').replace(/^\w/, (c) => c.toUpperCase()));
  return [PRODUCT_LABELS[product] ?? product ?? 'Home', ...folders].join(' › ');
}

// The index is fetched once; a failed or stalled fetch rejects, so the reader sees the failure
// message instead of "Searching..." forever, and the next search tries again.
const INDEX_TIMEOUT_MS = 10_000;
let indexes: Promise<void> | null = null;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('search index did not load')), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
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

export function warmUp(baseUrl: string): Promise<void> {
  if (!indexes) {
    const loading = withTimeout(Promise.resolve(fetchIndexesByWorker(baseUrl, '')).then(() => undefined), INDEX_TIMEOUT_MS);
    indexes = loading;
    loading.catch(() => {
      if (indexes === loading) indexes = null;
    });
  }
  return indexes;
}

/** Returns up to `limit` hits, best first, one per distinct url. */
export async function search(baseUrl: string, query: string, limit: number): Promise<Hit[]> {
  await warmUp(baseUrl);
  const raw = (await withTimeout(Promise.resolve(searchByWorker(baseUrl, '', query, limit)), INDEX_TIMEOUT_MS)) as RawResult[];
  const seen = new Set<string>();
  const hits: Hit[] = [];
  for (const r of raw) {
    const url = r.document.u + (r.document.h ?? '');
    if (seen.has(url)) continue;
    seen.add(url);
    const pageTitle = r.page ? r.page.t : undefined;
    const section = sectionOf(r.document.u);
    if (r.type === TITLE) hits.push({ url, title: r.document.t, section });
    else if (r.type === HEADING) hits.push({ url, title: r.document.t, context: pageTitle, section });
    else hits.push({ url, title: pageTitle ?? excerpt(r.document.t), context: excerpt(r.document.t), text: r.document.t, section });
  }
  return hits;
}
