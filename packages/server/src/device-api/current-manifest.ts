/**
 * `GET /device/me?expand=manifest`: the manifest of the bundle the device reports running (its
 * `reported_bundle_prn`), built by the binaries context like an update's manifest; null when the
 * device has reported none.
 */
import { manifestForBundle } from '../binaries/manifest';
import type { ManifestEntry } from '../binaries/manifest-schemas';
import type { DeviceRow } from '../certificates/device-certificate-lookup';
import { resourceIdFromPrn } from '../core/prn';
import type { Platform } from '../platform';

export async function currentManifest(platform: Platform, device: DeviceRow): Promise<ManifestEntry[] | null> {
  const bundleId = resourceIdFromPrn(device.reportedBundlePrn, 'bundle', device.organizationId);
  if (!bundleId) return null;
  return manifestForBundle(platform.db, platform, device.organizationId, bundleId, device.target);
}
