/**
 * The console is served by the admin server at /console/ (same origin as the API, so no CORS).
 * `npm run dev` serves it with hot reload and forwards every API path to a local server
 * (CANOPY_API_URL, default http://127.0.0.1:4000), keeping the same-origin shape.
 */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { fleetScreenHtml } from './vite-plugins/fleet-screen-html';
import { precompress } from './vite-plugins/precompress';

const api = process.env.CANOPY_API_URL ?? 'http://127.0.0.1:4000';

export default defineConfig({
  base: '/console/',
  plugins: [react(), fleetScreenHtml(), precompress()],
  build: {
    outDir: 'dist',
    sourcemap: false,
    chunkSizeWarningLimit: 1000,
    // No <link rel="modulepreload"> from Vite, in index.html or when a screen's chunk is imported:
    // Lighthouse (bench/console.ts) measured both pages better without them, the fleet view
    // 67 -> 79 and the sign-in page 90 -> 94. The preloads compete with the entry chunk and its
    // CSS for a slow link, and adding one <link> per dependency cost main-thread time. (CSS of a
    // screen's chunk is still loaded with it.) fleet.html preloads the one file of the fleet
    // screen, for its own URL only (vite-plugins/fleet-screen-html.ts).
    modulePreload: false,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            // Everything the entry imports is in the entry's file: shared pieces split out of it
            // would be a second round trip, found only once the entry has arrived.
            { name: 'index', tags: ['$initial'], priority: 3 },
            // The notifications host, loaded after every first paint (the sign-in page's too),
            // with what it imports: otherwise it would share, and fetch, the fleet screen's file.
            { name: 'NotificationsHost', test: /src[\\/]ui[\\/]NotificationsHost\.tsx$/, priority: 2 },
            // The fleet screen with all it imports in one file (fleet.html preloads it), not a
            // chain of small shared chunks each found only after the one before: four round trips
            // before its first paint on a slow link, now one. Screens that share its pieces load
            // this file; it is the home screen, so it is usually in the cache already.
            { name: 'FleetScreen', test: /src[\\/]routes[\\/]FleetScreen\.tsx$/, priority: 1 },
          ],
        },
      },
    },
  },
  server: {
    port: 5173,
    // Everything outside /console/ (and Vite's own paths) is the API.
    proxy: { '^/(?!console/|console$|@|node_modules/|src/).*': { target: api, changeOrigin: false } },
  },
});
