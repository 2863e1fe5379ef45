import { defineConfig } from 'vitest/config';

export default defineConfig({
  // tsconfig says `jsx: preserve` (Docusaurus compiles JSX itself); tests that render a theme
  // component need it compiled here.
  oxc: { jsx: { runtime: 'automatic' } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Browser tests share one built site and one Chromium; run files one after another.
    fileParallelism: false,
  },
});
