import { matchPath } from '@docusaurus/router';
import routes from '@generated/routes';
import routesChunkNames from '@generated/routesChunkNames';
import { matchRoutes, type RouteConfig } from 'react-router-config';

// Prefetches the chunks of a route with <link rel=prefetch>, like Docusaurus's own prefetch but
// cheaper per call, since the idle-time queue (clientModules/idlePrefetch.ts) runs many of them:
// - the chunk names per route path are indexed once, where Docusaurus filters the whole chunk
//   table with a regular expression for every route level of every prefetched path;
// - a chunk URL is requested once: every doc shares its parent routes' chunks, which Docusaurus
//   would insert another <link> for on every prefetch;
// - the preparation (that index, and compiling each route's pattern, which react-router does on
//   a pattern's first use and then caches) is a list of small steps the idle queue runs first.
declare const __webpack_require__: { gca: (chunkName: string) => string | undefined };

type ChunkTree = string | { [key: string]: ChunkTree };
const leaves = (tree: ChunkTree): string[] => (typeof tree === 'string' ? [tree] : Object.values(tree).flatMap(leaves));
const flatten = (list: RouteConfig[]): RouteConfig[] => list.flatMap((route) => [route, ...flatten(route.routes ?? [])]);

const chunksByPath = new Map<string, string[]>();
const requested = new Set<string>();
let steps: Array<() => void> | undefined;

/** The preparation still to do, as steps of well under a millisecond each (shared, consumed). */
export function preparationSteps(): Array<() => void> {
  steps ??= [
    ...Object.entries(routesChunkNames as Record<string, ChunkTree>).map(([key, tree]) => () => {
      // Keys are "<path>-<hash>".
      const routePath = key.replace(/-[^-]+$/, '');
      chunksByPath.set(routePath, [...(chunksByPath.get(routePath) ?? []), ...leaves(tree)]);
    }),
    ...flatten(routes as RouteConfig[])
      .filter((route) => typeof route.path === 'string')
      .map((route) => () => void matchPath('/', route)),
  ];
  return steps;
}

/** Docusaurus skips prefetching on 2g and data-saver connections; so do we. */
export function isSlowConnection(): boolean {
  const connection = (navigator as Navigator & { connection?: { effectiveType?: string; saveData?: boolean } }).connection;
  return Boolean(connection?.effectiveType?.includes('2g') || connection?.saveData);
}

export function prefetchRoute(path: string): void {
  // Normally done by now; finished here if not, so the index is never used half-built.
  const pending = preparationSteps();
  while (pending.length > 0) pending.shift()!();
  for (const { route } of matchRoutes(routes as RouteConfig[], path)) {
    if (typeof route.path !== 'string') continue;
    for (const name of chunksByPath.get(route.path) ?? []) {
      const url = __webpack_require__.gca(name);
      // A chunk merged into another one by the bundler has no URL of its own.
      if (!url || url.includes('undefined') || requested.has(url)) continue;
      requested.add(url);
      const link = document.createElement('link');
      link.rel = 'prefetch';
      link.href = url;
      document.head.appendChild(link);
    }
  }
}
