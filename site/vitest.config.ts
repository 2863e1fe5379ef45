import { defineConfig } from 'vitest/config';

// Browser tests share one built site and one Chromium; run files one after another.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
