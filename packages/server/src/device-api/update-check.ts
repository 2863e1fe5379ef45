/**
 * ADAPTER — stands in for the releases context's update service until it lands on main.
 *
 * The releases branch exports `checkForUpdate(platform, device, headers, { expand, write })` from
 * src/releases/update-service.ts (full resolution of api-contract.md section 5, manifests, claims,
 * events). This file has the same shape, so the swap is one import in routes.ts. Until then it
 * answers what needs no release tables: quarantine, and no_update for everyone else.
 */
import type { DeviceRow } from '../certificates/device-certificate-lookup';
import type { Platform } from '../platform';

export const UPDATE_EXPAND = ['bundle_override', 'bundle', 'cohort', 'manifest', 'release', 'source_type'] as const;
export type UpdateExpand = (typeof UPDATE_EXPAND)[number];

/** The position headers as sent (already checked for shape by the route schema). */
export interface PositionHeaderValues {
  releasePrn?: string;
  bundlePrn?: string;
  releaseVersion?: string;
}

export interface UpdateCheckOptions {
  expand: ReadonlySet<UpdateExpand>;
  /** Record what the device reported and the check's events (the device API always writes). */
  write: boolean;
}

export type UpdateAnswer = { status: 'update' | 'no_update' | 'device_quarantine' } & Partial<Record<UpdateExpand, unknown>>;

export async function checkForUpdate(_platform: Platform, device: DeviceRow, _headers: PositionHeaderValues, options: UpdateCheckOptions): Promise<UpdateAnswer> {
  const answer: UpdateAnswer = { status: device.quarantined ? 'device_quarantine' : 'no_update' };
  for (const field of options.expand) answer[field] = field === 'manifest' ? [] : null;
  return answer;
}

/** The manifest of what the device runs now, for `GET /device/me?expand=manifest`. */
export async function currentManifest(_platform: Platform, _device: DeviceRow): Promise<unknown[]> {
  return [];
}
