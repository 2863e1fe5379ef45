import path from 'node:path';
import type { Plugin } from '@docusaurus/types';

// Points the route table's `@docusaurus/ComponentCreator` at a wrapper that builds each route's
// loader on first use (src/client/lazyComponentCreator.tsx), in the client and server bundles
// alike so both render the same tree. The wrapper imports the original by its file path.
export default function lazyRouteComponents(): Plugin {
  return {
    name: 'canopy-lazy-route-components',
    configureWebpack() {
      return {
        resolve: {
          alias: { '@docusaurus/ComponentCreator': path.resolve(__dirname, '../client/lazyComponentCreator.tsx') },
        },
      };
    },
  };
}
