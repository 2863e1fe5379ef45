import path from 'node:path';
import type { Plugin } from '@docusaurus/types';

// The classic theme registers Prism's extra languages (bash, toml) in a client module, so every
// first visit evaluates the whole highlighter before hydrating, even on pages with no code (a
// long task Lighthouse counts on `/`). That module is pointed at a no-op here; the registration
// happens where code is shown instead (src/theme/CodeBlock imports src/prism/languages.ts).
export default function prismOnDemand(): Plugin {
  const themeModule = require.resolve('@docusaurus/theme-classic/lib/prism-include-languages');
  return {
    name: 'canopy-prism-on-demand',
    configureWebpack() {
      return {
        resolve: {
          alias: {
            [`${themeModule.replace(/\.js$/, '')}$`]: path.resolve(__dirname, '../clientModules/prismNoop.ts'),
          },
        },
      };
    },
  };
}
