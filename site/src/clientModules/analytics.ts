import type { ClientModule } from '@docusaurus/types';
import siteConfig from '@generated/docusaurus.config';
import { isNewView, pageView } from '../analytics/pageView';

// Page-view beacons go only to the endpoint fixed at build time (CANOPY_ANALYTICS_ENDPOINT).
// With none configured nothing is sent and no script is loaded.
const endpoint = String(siteConfig.customFields?.analyticsEndpoint ?? '');

const analytics: ClientModule = {
  onRouteDidUpdate({ location, previousLocation }) {
    if (!endpoint || typeof navigator.sendBeacon !== 'function') return;
    if (!isNewView(location, previousLocation)) return;
    // The title is set by the page's <head>, which lands just after the route update.
    window.setTimeout(() => {
      const event = pageView(location, previousLocation, document.title, document.referrer);
      // A plain string is sent as text/plain, which needs no CORS preflight.
      navigator.sendBeacon(endpoint, JSON.stringify(event));
    }, 0);
  },
};

export default analytics;
