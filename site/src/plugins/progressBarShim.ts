import path from 'node:path';
import type { Plugin } from '@docusaurus/types';

// The classic theme ships its own nprogress client module with fixed settings. Our own
// progress bar (src/clientModules/progressBar.ts) implements the spec's constants, so the
// theme's copy is pointed at a no-op module instead of running a second bar.
export default function progressBarShim(): Plugin {
  return {
    name: 'canopy-progress-bar-shim',
    configureWebpack() {
      return {
        resolve: {
          alias: { nprogress$: path.resolve(__dirname, '../clientModules/nprogressNoop.ts') },
        },
      };
    },
  };
}
