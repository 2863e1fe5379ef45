import type { ClientModule } from '@docusaurus/types';
import siteConfig from '@generated/docusaurus.config';

// Page-view beacons go only to the endpoint fixed at build time (CANOPY_ANALYTICS_ENDPOINT).
// With none configured nothing is sent and no script is loaded.
const endpoint = String(siteConfig.customFields?.analyticsEndpoint ?? '');

export interface PageView {
  type: 'page_view';
  path: string;
  query: string;
  hash: string;
  title: string;
  referrer: string;
  anonymize_ip: true;
}

const analytics: ClientModule = {
  onRouteDidUpdate({ location, previousLocation }) {
    if (!endpoint || typeof navigator.sendBeacon !== 'function') return;
    const changed =
      !previousLocation ||
      previousLocation.pathname !== location.pathname ||
      previousLocation.search !== location.search ||
      previousLocation.hash !== location.hash;
    if (!changed) return;
    // The title is set by the page's <head>, which lands just after the route update.
    window.setTimeout(() => {
      const event: PageView = {
        type: 'page_view',
        path: location.pathname,
        query: location.search,
        hash: location.hash,
        title: document.title,
        referrer: previousLocation ? previousLocation.pathname : document.referrer,
        anonymize_ip: true,
      };
      // A plain string is sent as text/plain, which needs no CORS preflight.
      navigator.sendBeacon(endpoint, JSON.stringify(event));
    }, 0);
  },
};

export default analytics;
