/**
 * ADAPTER — stands in for the releases context's update service until it lands on main.
 *
 * The releases branch exports, from src/releases/update-service.ts,
 *   checkForUpdate(platform, device, { releasePrn, bundlePrn, releaseVersion }, { write, actorPrn })
 *     -> { result, deviceAnswer(expand), adminAnswer() }
 * and UPDATE_EXPANSIONS. This file has exactly that shape, so the swap is one import in routes.ts
 * (and deleting this file). Until then it answers what needs no release tables: quarantine, and
 * no_update for everyone else, with each expanded field null.
 */
import type { DeviceRow } from '../certificates/device-certificate-lookup';
import type { Platform } from '../platform';

export const UPDATE_EXPANSIONS = ['source_type', 'release', 'bundle', 'bundle_override', 'cohort', 'manifest'] as const;
export type UpdateExpansion = (typeof UPDATE_EXPANSIONS)[number];

/** The position headers as sent (already checked for shape by the route schema). */
export interface ReportedState {
  releasePrn?: string | null;
  bundlePrn?: string | null;
  releaseVersion?: string | null;
}

export interface CheckOptions {
  /** Store the reported state on the device. */
  write?: boolean;
  actorPrn: string | null;
}

export interface UpdateCheck {
  deviceAnswer(expand: ReadonlySet<UpdateExpansion>): Promise<Record<string, unknown>>;
}

export async function checkForUpdate(_platform: Platform, device: DeviceRow, _reported: ReportedState, _options: CheckOptions): Promise<UpdateCheck> {
  const status = device.quarantined ? 'device_quarantine' : 'no_update';
  return {
    deviceAnswer: async (expand) => {
      const answer: Record<string, unknown> = { status };
      for (const field of expand) answer[field] = null;
      return answer;
    },
  };
}

/** The manifest of what the device runs now (its reported bundle), for `GET /device/me?expand=manifest`. */
export async function currentManifest(_platform: Platform, _device: DeviceRow): Promise<unknown[] | null> {
  return null;
}
