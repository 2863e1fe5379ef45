import type { ClientModule } from '@docusaurus/types';
import { isSlowConnection, prefetchRoute, preparationSteps } from '../client/routePrefetch';

// Docusaurus prefetches the chunks of each internal link as it comes into view. Right after the
// first paint that is every navbar, dropdown and footer link at once, each inserting
// <link rel=prefetch> elements, in one long task on the main thread. Prefetching stays (still
// skipped on 2g and data-saver connections); it is queued and done over idle time, a few paths
// per idle period, by src/client/routePrefetch.ts after its preparation steps. Hover and
// navigation preloads are untouched.
const MIN_IDLE_MS = 4;
// An idle period can be 50 ms long; using all of it would make each one a long task on a slow
// phone, so a callback stops after this much work and leaves the rest to the next period.
const BUDGET_MS = 6;
const FALLBACK_DELAY_MS = 50;

const queue: string[] = [];
const seen = new Set<string>();
let scheduled = false;

function schedule(run: (deadline?: IdleDeadline) => void): void {
  if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(run);
  else window.setTimeout(run, FALLBACK_DELAY_MS);
}

function drain(deadline?: IdleDeadline): void {
  const stopAt = performance.now() + BUDGET_MS;
  const preparation = preparationSteps();
  // Without idle callbacks (older Safari) the budget alone bounds a timer tick's work.
  do {
    const step = preparation.shift();
    if (step) step();
    else {
      const path = queue.shift();
      if (path !== undefined) prefetchRoute(path);
    }
  } while (
    (preparation.length > 0 || queue.length > 0) &&
    performance.now() < stopAt &&
    (deadline === undefined || deadline.timeRemaining() > MIN_IDLE_MS)
  );
  if (preparation.length > 0 || queue.length > 0) schedule(drain);
  else scheduled = false;
}

function install(): void {
  // The object Docusaurus publishes is frozen, so a copy with a queued prefetch replaces it.
  window.docusaurus = {
    ...window.docusaurus,
    prefetch: (path) => {
      if (isSlowConnection() || seen.has(path)) return false;
      seen.add(path);
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
