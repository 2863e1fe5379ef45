/**
 * Writes dist/fleet.html: index.html with the fleet screen's stylesheet, the script that starts
 * the screen's first requests (early-requests.ts), and in its root the screen's frame with the
 * script that shows it and then starts the code: the entry and, beside it, the screen's own
 * files (fleet-frame.ts). The admin server sends it for /console/fleet
 * (packages/server/src/console-app/routes.ts), so a browser opening the fleet view paints the
 * frame before the code has arrived, and fetches the screen beside the entry instead of after
 * the entry has run and its router has asked for it: one round trip fewer before the first rows
 * on a slow link. Every other path, the sign-in page's among them, keeps index.html and does not
 * pay for the fleet's bytes.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Plugin, Rolldown } from 'vite';
import { earlyRequestsScript } from './early-requests';
import { frameScript, hiddenFrame, prerenderFleetFrame } from './fleet-frame';

type OutputBundle = Rolldown.OutputBundle;
type OutputChunk = Rolldown.OutputChunk;

const SCREEN = '/src/routes/FleetScreen.tsx';
const ROOT = '<div id="root"></div>';
const CHARSET = '<meta charset="UTF-8" />\n    ';
const ENTRY_SCRIPT = /\n\s*<script type="module" crossorigin src="([^"]+)"><\/script>/;

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
  let root = '';
  let styleLinks = '';
  let screenScripts: string[] = [];
  return {
    name: 'canopy:fleet-screen-html',
    apply: 'build',
    configResolved(config) {
      base = config.base;
      root = config.root;
    },
    generateBundle(_options, bundle) {
      const { scripts, styles } = screenFiles(bundle as OutputBundle);
      // `crossorigin` as on the entry's <script>, so the module map and the fetch match.
      styleLinks = styles.map((file) => `    <link rel="stylesheet" crossorigin href="${base}${file}">\n`).join('');
      screenScripts = scripts.map((file) => `${base}${file}`);
    },
    // The output directory is the hook's own `dir`, where index.html has just been written.
    async writeBundle({ dir }) {
      const outDir = dir!;
      const index = fs.readFileSync(path.join(outDir, 'index.html'), 'utf8');
      if (!index.includes('  </head>')) throw new Error('index.html has no </head> to put the fleet screen links before');
      if (!index.includes(ROOT)) throw new Error(`index.html has no ${ROOT} to draw the fleet frame in`);
      if (!index.includes(CHARSET)) throw new Error(`index.html has no ${CHARSET} to put the early requests after`);
      const entry = ENTRY_SCRIPT.exec(index);
      if (!entry) throw new Error("index.html has no <script type=\"module\" crossorigin src=...> for the entry");
      // First in <head>: an inline script after a stylesheet waits for it.
      const early = `<script>${earlyRequestsScript()}</script>\n    `;
      const frame = `<div id="root">${hiddenFrame(await prerenderFleetFrame(root))}</div>\n    <script>${frameScript(entry[1], screenScripts)}</script>`;
      const html = index
        .replace(CHARSET, `${CHARSET}${early}`)
        .replace(entry[0], '')
        .replace('  </head>', `${styleLinks}  </head>`)
        .replace(ROOT, frame);
      fs.writeFileSync(path.join(outDir, 'fleet.html'), html);
    },
  };
}
