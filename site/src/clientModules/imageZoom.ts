import type { ClientModule } from '@docusaurus/types';
import type { Zoom } from 'medium-zoom';

// Images written directly in page content become zoomable. The page's images only exist once
// React has rendered the new route, hence the 1000 ms wait before attaching. The zoom library
// is fetched only for a page that has such an image, so it is not part of the first-load bundle.
const ATTACH_DELAY_MS = 1000;
const SELECTOR = '.markdown img:not(a img)';

let zoom: Zoom | undefined;
// Guards against an older route's attach finishing after a newer route's.
let generation = 0;

const imageZoom: ClientModule = {
  onRouteDidUpdate() {
    const current = ++generation;
    window.setTimeout(() => {
      zoom?.detach();
      zoom = undefined;
      if (!document.querySelector(SELECTOR)) return;
      import('medium-zoom').then(
        ({ default: mediumZoom }) => {
          if (current !== generation) return;
          zoom = mediumZoom(SELECTOR, { margin: 0, scrollOffset: 40, background: 'rgba(255,255,255,0.95)' });
        },
        () => undefined,
      );
    }, ATTACH_DELAY_MS);
  },
};

export default imageZoom;
