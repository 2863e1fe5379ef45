/**
 * The manifest entry of the admin update check (`POST /devices/{prn}/update`), in the public
 * API's flat shape: `artifact_prn`, `artifact_version` as the version string, `custom_metadata`
 * always an object (`{}` when the binary has none). The device API's `GET /update` keeps the
 * nested entry. Both come from the same ManifestEntry, so they never disagree; both schemas are in
 * manifest-schemas.ts.
 */
import type { AdminManifestEntry, ManifestEntry } from './manifest-schemas';

export function toAdminManifestEntry(entry: ManifestEntry): AdminManifestEntry {
  return {
    artifact_prn: entry.artifact.prn,
    artifact_version: entry.artifact_version.version,
    binary_prn: entry.binary_prn,
    custom_metadata: entry.custom_metadata ?? {},
    hash: entry.hash,
    signatures: entry.signatures,
    size: entry.size,
    target: entry.target,
    url: entry.url,
  };
}
