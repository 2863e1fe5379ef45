/** What `GET /device/me` answers: the calling device, with its cohort and current manifest on request. */
import { cohortToWire, getCohort } from '../cohorts/service';
import { deviceToWire } from '../devices/service';
import type { AuthenticatedDevice } from '../http/device-request';
import type { Platform } from '../platform';
import { currentManifest } from './current-manifest';
import type { ManifestEntry } from '../binaries/manifest-schemas';

export const ME_EXPAND = ['cohort', 'manifest'] as const;
export type MeExpansion = (typeof ME_EXPAND)[number];

export async function describeDevice(platform: Platform, device: AuthenticatedDevice, expand: ReadonlySet<MeExpansion>) {
  const wire = deviceToWire(device.row);
  const data: typeof wire & { cohort?: ReturnType<typeof cohortToWire> | null; manifest?: ManifestEntry[] | null } = wire;
  if (expand.has('cohort')) {
    // The device reads its own cohort as a read-only caller of its organization.
    const actor = { organizationId: device.organizationId, role: 'read' as const, keyKind: 'current' as const, keyId: device.row.id, userId: null, prn: device.prn };
    data.cohort = wire.cohort_prn ? cohortToWire(await getCohort(platform.db, actor, wire.cohort_prn)) : null;
  }
  if (expand.has('manifest')) data.manifest = await currentManifest(platform, device.row);
  return data;
}
