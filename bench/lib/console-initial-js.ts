/**
 * The initial JavaScript a browser loads for the console (the entry chunk and every chunk it
 * imports statically, gzip level 9), beside a bare Vite React template (create-vite's react-ts shape: one
 * component with a counter) built with the same Vite and React in the same run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { build } from 'vite';
import { ROOT } from './processes';

export const CONSOLE_DIR = path.join(ROOT, 'packages/console');
// Inside the repository so the template resolves React and Vite from the shared node_modules.
const stockDir = path.join(ROOT, 'bench/.stock-console');
/** The template's build, served as a baseline page for Lighthouse. */
export const STOCK_DIST = path.join(stockDir, 'dist');

function writeTemplate(): void {
  fs.rmSync(stockDir, { recursive: true, force: true });
  fs.mkdirSync(path.join(stockDir, 'src'), { recursive: true });
  fs.writeFileSync(path.join(stockDir, 'index.html'), '<!doctype html><html lang="en"><head><meta charset="UTF-8" /><title>Vite + React</title></head><body><div id="root"></div><script type="module" src="/src/main.jsx"></script></body></html>');
  fs.writeFileSync(
    path.join(stockDir, 'src/main.jsx'),
    `import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
function App() {
  const [count, setCount] = useState(0);
  return <><h1>Vite + React</h1><button onClick={() => setCount((c) => c + 1)}>count is {count}</button></>;
}
createRoot(document.getElementById('root')).render(<StrictMode><App /></StrictMode>);
`,
  );
}

export interface InitialJs {
  files: string[];
  /** gzip level 9 */
  bytes: number;
  raw: number;
}

/**
 * The chunks a chunk imports statically (`import ... from "./x.js"` and `export ... from`), not
 * its dynamic `import("./x.js")`: what the browser must fetch before the chunk runs.
 */
function staticImports(source: string): string[] {
  return [...source.matchAll(/(?:^|[;}\s])(?:import|export)\s*(?:[\w$*{},\s]+from\s*)?["'](\.\/[^"']+\.js)["']/g)].map((m) => m[1].slice(2));
}

/**
 * Gzipped bytes of the scripts a first visit runs before anything is drawn: those index.html
 * names (module entry, and modulepreload links if any) and, transitively, their static imports.
 */
function initialJsGzip(dist: string): InitialJs {
  const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
  const pending = [...html.matchAll(/(?:src|href)="([^"]+\.js)"/g)].map((m) => m[1].replace(/^.*\/assets\//, 'assets/'));
  const files: string[] = [];
  let bytes = 0;
  let raw = 0;
  while (pending.length > 0) {
    const file = pending.shift()!;
    if (files.includes(file)) continue;
    files.push(file);
    const body = fs.readFileSync(path.join(dist, file));
    raw += body.length;
    bytes += gzipSync(body, { level: 9 }).length;
    pending.push(...staticImports(body.toString('utf8')).map((name) => path.posix.join(path.posix.dirname(file), name)));
  }
  return { files, bytes, raw };
}

/** Builds the console (packages/console/dist, which the server then serves) and the template. */
export async function buildConsoleAndTemplate(): Promise<{ ours: InitialJs; stock: InitialJs }> {
  writeTemplate();
  await build({ root: CONSOLE_DIR, logLevel: 'warn', configFile: path.join(CONSOLE_DIR, 'vite.config.ts') });
  await build({ root: stockDir, logLevel: 'warn', configFile: false, plugins: [react()], build: { outDir: STOCK_DIST } });
  return { ours: initialJsGzip(path.join(CONSOLE_DIR, 'dist')), stock: initialJsGzip(STOCK_DIST) };
}
