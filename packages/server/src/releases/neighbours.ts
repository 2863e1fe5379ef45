/**
 * Rows of neighbouring contexts that releases, bundle overrides and the update check read by
 * prn, each from its own context's service (404, or 422 on `field` when one is given).
 */
export { getBundle, type BundleRow } from '../bundles/service';
export { getCohort, type CohortRow } from '../cohorts/service';
export { getDevice, type DeviceRow } from '../devices/service';
