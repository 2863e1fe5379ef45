import type { ClientModule } from '@docusaurus/types';

// Docusaurus prefetches the chunks of each internal link as it comes into view. Right after the
// first paint that is every navbar, dropdown and footer link at once, each inserting
// <link rel=prefetch> elements, in one long task on the main thread. Prefetching stays (and
// Docusaurus still skips it on 2g and data-saver connections); it is only spread over idle time,
// a few paths per idle period. Hover and navigation preloads are untouched.
const MIN_IDLE_MS = 4;
const FALLBACK_DELAY_MS = 50;

const queue: string[] = [];
let scheduled = false;

function schedule(run: (deadline?: IdleDeadline) => void): void {
  if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(run);
  else window.setTimeout(run, FALLBACK_DELAY_MS);
}

function install(): void {
  const original = window.docusaurus;
  const drain = (deadline?: IdleDeadline) => {
    // Without idle callbacks (older Safari), one path per timer tick.
    do {
      const path = queue.shift();
      if (path !== undefined) original.prefetch(path);
    } while (queue.length > 0 && deadline !== undefined && deadline.timeRemaining() > MIN_IDLE_MS);
    if (queue.length > 0) schedule(drain);
    else scheduled = false;
  };
  // The object Docusaurus publishes is frozen, so a copy with a queued prefetch replaces it.
  window.docusaurus = {
    ...original,
    prefetch: (path) => {
      queue.push(path);
      if (!scheduled) {
        scheduled = true;
        schedule(drain);
      }
      return false;
    },
  };
}

let installed = false;

const idlePrefetch: ClientModule = {
  // The first route update comes while the app first renders, before any link has mounted.
  onRouteUpdate() {
    if (installed || !window.docusaurus) return;
    installed = true;
    install();
  },
};

export default idlePrefetch;
