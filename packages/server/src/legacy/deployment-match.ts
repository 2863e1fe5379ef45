/**
 * Which deployment a legacy device gets (`GET /device/update`), as a pure function of loaded
 * rows (deployment-match.test.ts covers each rule):
 *  - only active deployments of the device's product are candidates (the caller loads those);
 *  - every tag of `conditions.tags` must be on the device;
 *  - `conditions.version` (an Elixir requirement, `~> 1.2`), when set, must match the device's
 *    firmware version; an unknown version never matches, and where the public API leaves it open,
 *    a version that is not valid semver counts as unknown;
 *  - a deployment of the firmware the device already runs (same uuid) is no update;
 *  - among the matching ones, the newest (inserted last; ties by id) wins.
 */
import { isValidVersion, versionMatches } from '../updates/core/version';

export interface CandidateDeployment {
  id: string;
  insertedAt: string;
  conditionsVersion: string | null;
  conditionsTags: readonly string[];
  firmwareUuid: string;
}

export interface LegacyDevice {
  tags: readonly string[] | null;
  /** The firmware version it runs (x-canopy-version, else its firmware's), or null when unknown. */
  firmwareVersion: string | null;
  firmwareUuid: string;
}

export function deploymentMatches(deployment: CandidateDeployment, device: LegacyDevice): boolean {
  const tags = new Set(device.tags ?? []);
  if (!deployment.conditionsTags.every((tag) => tags.has(tag))) return false;
  if (deployment.conditionsVersion) {
    const version = device.firmwareVersion;
    if (version === null || !isValidVersion(version)) return false;
    if (!versionMatches(version, deployment.conditionsVersion)) return false;
  }
  return true;
}

export function matchDeployment<D extends CandidateDeployment>(deployments: readonly D[], device: LegacyDevice): D | null {
  const newestFirst = [...deployments].sort((a, b) => (a.insertedAt < b.insertedAt ? 1 : a.insertedAt > b.insertedAt ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  for (const deployment of newestFirst) {
    if (!deploymentMatches(deployment, device)) continue;
    return deployment.firmwareUuid === device.firmwareUuid ? null : deployment;
  }
  return null;
}
