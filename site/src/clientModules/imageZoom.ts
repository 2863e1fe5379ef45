import type { ClientModule } from '@docusaurus/types';
import mediumZoom, { type Zoom } from 'medium-zoom';

// Images written directly in page content become zoomable. The page's images only exist once
// React has rendered the new route, hence the 1000 ms wait before attaching.
const ATTACH_DELAY_MS = 1000;
const SELECTOR = '.markdown img:not(a img)';

let zoom: Zoom | undefined;

const imageZoom: ClientModule = {
  onRouteDidUpdate() {
    window.setTimeout(() => {
      zoom?.detach();
      zoom = mediumZoom(SELECTOR, { margin: 0, scrollOffset: 40, background: 'rgba(255,255,255,0.95)' });
    }, ATTACH_DELAY_MS);
  },
};

export default imageZoom;
