/**
 * Writes a brotli copy (`name.br`, quality 11) beside each text file of the build, which the
 * admin server sends to browsers that accept brotli (packages/server/src/site/static-site.ts
 * encodedFiles). Quality 11 takes about a second for the entry chunk, too slow for the server to
 * make per request, and saves about 14% over gzip's best: on a slow phone link, ~25 kB less
 * before the fleet view's first paint (bench/console.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants } from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const TEXT = new Set(['.html', '.js', '.css', '.svg', '.json']);
// Below this a file fits in a packet or two whatever its encoding.
const MIN_BYTES = 1024;

function textFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return textFiles(file);
    return TEXT.has(path.extname(entry.name)) ? [file] : [];
  });
}

export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'canopy:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    // After every file is written, fleet.html (fleet-screen-html.ts) included.
    async closeBundle() {
      await Promise.all(
        textFiles(outDir).map(async (file) => {
          const raw = await fs.promises.readFile(file);
          if (raw.length < MIN_BYTES) return;
          const body = await brotli(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
          await fs.promises.writeFile(`${file}.br`, body);
        }),
      );
    },
  };
}
