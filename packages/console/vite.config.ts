/**
 * The console is served by the admin server at /console/ (same origin as the API, so no CORS).
 * `npm run dev` serves it with hot reload and forwards every API path to a local server
 * (CANOPY_API_URL, default http://127.0.0.1:4000), keeping the same-origin shape.
 */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const api = process.env.CANOPY_API_URL ?? 'http://127.0.0.1:4000';

export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    sourcemap: false,
    chunkSizeWarningLimit: 1000,
    // No <link rel="modulepreload">, in index.html or when a screen's chunk is imported: Lighthouse
    // (bench/console.ts) measured both pages better without them, the fleet view 67 -> 79 and the
    // sign-in page 90 -> 94. The preloads compete with the entry chunk and its CSS for a slow
    // link, and adding one <link> per dependency cost main-thread time. (CSS of a screen's chunk
    // is still loaded with it.)
    modulePreload: false,
  },
  server: {
    port: 5173,
    // Everything outside /console/ (and Vite's own paths) is the API.
    proxy: { '^/(?!console/|console$|@|node_modules/|src/).*': { target: api, changeOrigin: false } },
  },
});
