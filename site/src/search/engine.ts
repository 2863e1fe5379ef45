import { fetchIndexesByWorker, searchByWorker } from '@easyops-cn/docusaurus-search-local/dist/client/client/theme/searchByWorker';

// Thin wrapper over the local search plugin's web worker: the index is a static file of this
// site, so searching never leaves the browser.

export interface Hit {
  url: string;
  title: string;
  page?: string;
}

interface RawResult {
  document: { i: number; t: string; u: string; h?: string };
  type: number;
  page?: { t: string } | false;
}

const TITLE_TYPE = 0;

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
    hits.push({
      url,
      title: r.document.t,
      page: r.type !== TITLE_TYPE && r.page ? r.page.t : undefined,
    });
  }
  return hits;
}
