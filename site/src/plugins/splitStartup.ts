import path from 'node:path';
import type { Plugin } from '@docusaurus/types';

// Makes src/client/entry.ts the client bundle's entry; it evaluates the app's modules in a few
// tasks and then runs Docusaurus's own client entry. React DOM (about 40 % of main.js) is put in
// a script of its own, loaded with main.js, so the browser compiles the two in separate tasks.
// The server bundle is unchanged.
export default function splitStartup(): Plugin {
  return {
    name: 'canopy-split-startup',
    configureWebpack(_config, isServer) {
      if (isServer) return {};
      return {
        entry: path.resolve(__dirname, '../client/entry.ts'),
        mergeStrategy: { entry: 'replace' },
        optimization: {
          splitChunks: {
            cacheGroups: {
              reactDom: { test: /[\\/]node_modules[\\/](react-dom|scheduler)[\\/]/, chunks: 'initial', enforce: true, priority: 45 },
            },
          },
        },
      };
    },
  };
}
