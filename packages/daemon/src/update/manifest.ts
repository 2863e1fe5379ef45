/**
 * One entry of an update manifest, as `GET /update?expand=manifest` answers it (device API
 * reference: site/docs/canopy-core/tools/device-api.mdx).
 */
export interface ManifestSignature {
  /** 128 hex characters: Ed25519 over the ASCII bytes of the lowercase hex SHA-256. */
  signature: string;
  signing_key_prn: string;
  /** The signing key's public key, PEM (SPKI). */
  public_value?: string | null;
}

export interface ManifestEntry {
  binary_prn: string;
  artifact: { prn: string; name: string };
  artifact_version: { prn: string; version: string };
  custom_metadata: Record<string, unknown> | null;
  /** Lowercase hex SHA-256 of the binary. */
  hash: string;
  size: number;
  target: string;
  url: string;
  signatures: ManifestSignature[];
}
