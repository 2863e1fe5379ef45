/**
 * The manifest entry on the wire: the device API's nested entry (`GET /update?expand=manifest`,
 * `GET /device/me?expand=manifest`) and the admin check's flat one (admin-manifest.ts). The
 * TypeScript types derive from these schemas, and the SDK's from the OpenAPI document they make.
 */
import { Type, type Static } from 'typebox';
import { Nullable, Prn } from '../http/schemas';

export const ManifestSignature = Type.Object({
  signature: Type.String({ description: '128 hex characters: Ed25519 over the ASCII bytes of the lowercase hex SHA-256.' }),
  signing_key_prn: Prn('The signing key.'),
  public_value: Type.String({ description: 'The signing key as PEM (SPKI).' }),
});
export type ManifestSignature = Static<typeof ManifestSignature>;

const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: "The binary's custom metadata." });
const Hash = Type.String({ description: 'Lowercase hex SHA-256 of the binary.' });
const Size = Type.Integer({ description: 'Bytes.' });
const Target = Type.String({ description: 'The target triplet the binary is built for.' });
const Url = Type.String({ description: 'Download URL, valid 24 hours.' });

export const ManifestEntry = Type.Object({
  binary_prn: Prn('The binary to install.'),
  artifact: Type.Object({ prn: Prn('The artifact.'), name: Type.String() }),
  artifact_version: Type.Object({ prn: Prn('The artifact version.'), version: Type.String() }),
  custom_metadata: Nullable(Metadata),
  hash: Hash,
  size: Size,
  target: Target,
  url: Url,
  signatures: Type.Array(ManifestSignature),
  delta: Type.Optional(
    Type.Object(
      {
        url: Type.String({ description: 'Download URL of the delta, valid 24 hours.' }),
        size: Size,
        hash: Type.String({ description: 'Lowercase hex SHA-256 of the delta.' }),
        base_binary_prn: Prn('The binary the delta rebuilds from: the one the device runs.'),
        base_hash: Type.String({ description: 'Lowercase hex SHA-256 of the base binary.' }),
      },
      { description: "Present when a delta from the binary the device reports running is ready (docs: Delta updates). The rebuilt binary is checked against `hash` and `signatures` like a download." },
    ),
  ),
});
export type ManifestEntry = Static<typeof ManifestEntry>;

/** The public API's flat entry of `POST /devices/{prn}/update`. */
export const AdminManifestEntry = Type.Object({
  artifact_prn: Prn('The artifact.'),
  artifact_version: Type.String({ description: "The artifact version's version string.", examples: ['1.4.0'] }),
  binary_prn: Prn('The binary to install.'),
  custom_metadata: Type.Record(Type.String(), Type.Unknown(), { description: "The binary's custom metadata; {} when it has none." }),
  hash: Hash,
  signatures: Type.Array(ManifestSignature),
  size: Size,
  target: Target,
  url: Url,
});
export type AdminManifestEntry = Static<typeof AdminManifestEntry>;
