import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// Two kinds of tests: components in jsdom (fast, no server), and the built console in real
// Chromium against a real Canopy server (test/browser; `npm test` builds the console first).
export default defineConfig({
  plugins: [react()],
  test: {
    projects: [
      { extends: true, test: { name: 'components', include: ['test/components/**/*.test.{ts,tsx}'], environment: 'jsdom', setupFiles: ['test/components/setup.ts'] } },
      { extends: true, test: { name: 'browser', include: ['test/browser/**/*.test.ts'], environment: 'node', pool: 'forks', maxWorkers: 1, testTimeout: 120_000, hookTimeout: 180_000 } },
    ],
  },
});
