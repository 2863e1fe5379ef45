/**
 * The fleet frame of fleet.html (src/prerender/fleet-frame.tsx), and the script that shows it and
 * starts the console's code after it. The frame is built for Node beside the browser's bundle,
 * with the same plugins, then run once to get its HTML; that build's output is thrown away.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import react from '@vitejs/plugin-react';
import { build } from 'vite';
import { SESSION_STORAGE_KEY } from '../src/api/session';

const ENTRY = 'src/prerender/fleet-frame.tsx';

/** The frame's HTML, rendered from the console's sources under `root`. */
export async function prerenderFleetFrame(root: string): Promise<string> {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-fleet-frame-'));
  try {
    await build({
      configFile: false,
      root,
      logLevel: 'warn',
      plugins: [react()],
      // Everything bundled, so the output runs from the temporary directory; every file .mjs, so
      // Node loads each as a module whatever loader it runs under (tsx took a .js for CommonJS).
      ssr: { noExternal: true },
      build: { ssr: ENTRY, outDir, emptyOutDir: true, minify: false, rolldownOptions: { output: { entryFileNames: 'fleet-frame.mjs', chunkFileNames: '[name]-[hash].mjs' } } },
    });
    const { renderFleetFrame } = (await import(pathToFileURL(path.join(outDir, 'fleet-frame.mjs')).href)) as { renderFleetFrame(): string };
    return renderFleetFrame();
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
  }
}

/**
 * The frame as it goes into fleet.html's root: hidden until frameScript shows it. Inert: it looks
 * like the screen, but the code that makes it work has not arrived, so it takes no focus and no
 * input, and is left out of the accessibility tree. The first render replaces it.
 */
export function hiddenFrame(html: string): string {
  return `<div data-fleet-frame hidden inert>${html}</div>`;
}

/**
 * Runs after the frame in fleet.html. With a session in sessionStorage it fills in who is signed
 * in, shows the frame, and starts the console's code (the `entry` script, and modulepreload links
 * for the fleet screen's own files) once the frame has been painted. Fetched from <head>, on a
 * fast link the code arrived and ran before the frame was painted, holding it back; on a slow
 * link the stylesheet now has the connection to itself. Without a session the console draws the
 * sign-in page, so the frame stays hidden (shown, it would flash) and the code starts at once;
 * likewise in a tab opened in the background, which paints nothing until it is shown.
 */
export function frameScript(entry: string, screenScripts: string[]): string {
  return `(() => {
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    for (const href of ${JSON.stringify(screenScripts)}) {
      const link = document.createElement('link');
      link.rel = 'modulepreload';
      link.crossOrigin = '';
      link.href = href;
      document.head.append(link);
    }
    const script = document.createElement('script');
    script.type = 'module';
    script.crossOrigin = '';
    script.src = ${JSON.stringify(entry)};
    document.head.append(script);
  };
  try {
    const session = JSON.parse(sessionStorage.getItem(${JSON.stringify(SESSION_STORAGE_KEY)}) || 'null');
    if (!session || !session.apiKey || document.visibilityState !== 'visible' || !PerformanceObserver.supportedEntryTypes.includes('paint')) return start();
    const frame = document.querySelector('[data-fleet-frame]');
    const who = frame.querySelector('[data-testid="signed-in-as"]');
    if (who) who.textContent = session.name + ' (' + session.role + ')';
    // What MantineProvider sets when it mounts: the frame's colours are the light scheme's.
    document.documentElement.setAttribute('data-mantine-color-scheme', 'light');
    frame.hidden = false;
    // The paint entry is reported once the frame is on screen. The timer is a safety net only.
    new PerformanceObserver((entries, observer) => {
      if (entries.getEntriesByName('first-contentful-paint').length === 0) return;
      observer.disconnect();
      start();
    }).observe({ type: 'paint', buffered: true });
    setTimeout(start, 3000);
  } catch {
    start();
  }
})();`;
}
