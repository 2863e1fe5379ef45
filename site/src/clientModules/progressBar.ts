import type { ClientModule } from '@docusaurus/types';

// Route progress bar with the spec's constants: starts at 8 %, animates each step in 200 ms,
// creeps forward every 800 ms, and only appears when a path change takes longer than 200 ms.
const MINIMUM = 0.08;
const SPEED_MS = 200;
const TRICKLE_MS = 800;
const DELAY_MS = 200;

let bar: HTMLDivElement | null = null;
let value = 0;
let trickle: number | undefined;

function render(): void {
  if (!bar) {
    bar = document.createElement('div');
    bar.className = 'canopy-progress';
    bar.setAttribute('role', 'progressbar');
    document.body.appendChild(bar);
  }
  bar.style.transition = `transform ${SPEED_MS}ms ease, opacity ${SPEED_MS}ms ease`;
  bar.style.transform = `scaleX(${value})`;
  bar.style.opacity = '1';
}

function start(): void {
  value = MINIMUM;
  render();
  window.clearInterval(trickle);
  // Each tick covers a share of what is left, so the bar never reaches the end on its own.
  trickle = window.setInterval(() => {
    value = Math.min(0.994, value + (1 - value) * 0.1);
    render();
  }, TRICKLE_MS);
}

function done(): void {
  window.clearInterval(trickle);
  if (!bar || value === 0) return;
  value = 1;
  render();
  const finished = bar;
  window.setTimeout(() => {
    finished.style.opacity = '0';
    value = 0;
  }, SPEED_MS);
}

const progressBar: ClientModule = {
  onRouteUpdate({ location, previousLocation }) {
    if (!previousLocation || location.pathname === previousLocation.pathname) return undefined;
    const timer = window.setTimeout(start, DELAY_MS);
    return () => window.clearTimeout(timer);
  },
  onRouteDidUpdate() {
    done();
  },
};

export default progressBar;
