import path from 'node:path';
import type { Plugin } from '@docusaurus/types';

/**
 * The API reference is rendered from the server's OpenAPI documents (1.8 MB for the admin API)
 * and the recorded examples, at build time. The browser never needs them: the rendered reference
 * is already in the page's HTML, and <ServerRendered> keeps that HTML instead of rendering it
 * again (see src/components/ServerRendered). So only the server bundle (which writes the HTML)
 * gets the real modules; the client bundle gets empty stand-ins, and the reference pages load
 * none of those bytes as JavaScript.
 */
export default function apiDocumentsServerOnly(): Plugin {
  const stub = path.resolve(__dirname, '../api/clientStubs/empty.ts');
  const serverOnly = [
    path.resolve(__dirname, '../api/admin.ts'),
    path.resolve(__dirname, '../api/device.ts'),
    path.resolve(__dirname, '../../data/api-examples.json'),
  ];
  return {
    name: 'canopy-api-documents-server-only',
    configureWebpack(_config, isServer) {
      if (isServer) return {};
      return { resolve: { alias: Object.fromEntries(serverOnly.map((file) => [`${file.replace(/\.ts$/, '')}$`, stub]).concat(serverOnly.map((file) => [`${file}$`, stub]))) } };
    },
  };
}
