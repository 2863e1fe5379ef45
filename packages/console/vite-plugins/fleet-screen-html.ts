/**
 * Writes dist/fleet.html: index.html plus a <link> for the code and styles of the fleet screen,
 * beyond the entry's, and the script that starts the screen's first requests (early-requests.ts).
 * The admin server sends it for /console/fleet (packages/server/src/console-app/routes.ts), so a
 * browser opening the fleet view fetches the screen beside the entry instead of after the entry
 * has run and its router has asked for it: one round trip fewer before the first rows on a slow
 * link. Every other path, the sign-in page's among them, keeps index.html and does not pay for
 * the fleet's bytes.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Plugin, Rolldown } from 'vite';
import { earlyRequestsScript } from './early-requests';

type OutputBundle = Rolldown.OutputBundle;
type OutputChunk = Rolldown.OutputChunk;

const SCREEN = '/src/routes/FleetScreen.tsx';

/** The files the screen's chunk needs before it runs, the entry chunk's own excepted. */
function screenFiles(bundle: OutputBundle): { scripts: string[]; styles: string[] } {
  const chunks = new Map(Object.values(bundle).filter((c): c is OutputChunk => c.type === 'chunk').map((c) => [c.fileName, c]));
  const screen = [...chunks.values()].find((c) => c.moduleIds.some((id) => id.replaceAll('\\', '/').endsWith(SCREEN)));
  if (!screen) throw new Error(`no chunk for ${SCREEN}: was the fleet route renamed?`);
  const scripts: string[] = [];
  const styles = new Set<string>();
  const visit = (chunk: OutputChunk) => {
    if (chunk.isEntry || scripts.includes(chunk.fileName)) return;
    scripts.push(chunk.fileName);
    for (const css of chunk.viteMetadata?.importedCss ?? []) styles.add(css);
    for (const name of chunk.imports) visit(chunks.get(name)!);
  };
  visit(screen);
  return { scripts, styles: [...styles] };
}

export function fleetScreenHtml(): Plugin {
  let base = '/';
  let links = '';
  return {
    name: 'canopy:fleet-screen-html',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    generateBundle(_options, bundle) {
      const { scripts, styles } = screenFiles(bundle as OutputBundle);
      // `crossorigin` as on the entry's <script>, so the module map and the fetch match.
      links = [...styles.map((file) => `<link rel="stylesheet" crossorigin href="${base}${file}">`), ...scripts.map((file) => `<link rel="modulepreload" crossorigin href="${base}${file}">`)].map((link) => `    ${link}\n`).join('');
    },
    // The output directory is the hook's own `dir`, where index.html has just been written.
    writeBundle({ dir }) {
      const outDir = dir!;
      const index = fs.readFileSync(path.join(outDir, 'index.html'), 'utf8');
      if (!index.includes('  </head>')) throw new Error('index.html has no </head> to put the fleet screen links before');
      const early = `    <script>${earlyRequestsScript()}</script>\n`;
      fs.writeFileSync(path.join(outDir, 'fleet.html'), index.replace('  </head>', `${early}${links}  </head>`));
    },
  };
}
