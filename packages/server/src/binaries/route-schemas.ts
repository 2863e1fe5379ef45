/** TypeBox shapes of binaries, parts and signatures, shared by their routes. */
import { Type } from 'typebox';
import { CustomMetadata, Description, Nullable, Prn, ResourceFields } from '../http/schemas';
import { BINARY_SIZE_MAX } from './service';
import { PART_INDEX_MAX, PART_SIZE_MAX } from './part-rules';
import { BINARY_STATES, PART_STATES, type BinaryState, type PartState } from './schema';

const OneOf = <T extends string>(values: readonly T[], description: string) => Type.Unsafe<T>({ type: 'string', enum: [...values], description });

export const Sha256Hex = (description: string) => Type.String({ pattern: '^[0-9a-f]{64}$', description, examples: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'] });
export const BinarySize = (description: string) => Type.Integer({ minimum: 0, maximum: BINARY_SIZE_MAX, description });
export const Target = Type.String({ minLength: 1, maxLength: 128, description: 'Target triplet, 1 to 128 characters.', examples: ['aarch64-unknown-linux-gnu'] });
export const BinaryStateSchema = OneOf<BinaryState>(BINARY_STATES, 'uploadable, hashable, hashing, signable, signed or destroyed.');

export const Binary = Type.Object({
  ...ResourceFields,
  artifact_version_prn: Prn('The artifact version these bytes are a build of.'),
  hash: Sha256Hex('Declared lowercase hex SHA-256 of the whole binary.'),
  size: BinarySize('Declared size in bytes.'),
  target: Target,
  description: Nullable(Description()),
  custom_metadata: Nullable(CustomMetadata),
  state: BinaryStateSchema,
  revision: Type.Integer({ description: 'Bumped on every reset to uploadable.' }),
  hash_error: Nullable(Type.String({ description: 'Why the last hashing attempt sent the binary back to hashable.' })),
  signatures: Type.Array(Type.Object({ signature: Type.String(), signing_key_prn: Prn('The signing key.') }), { description: 'Ed25519 signatures over the hash.' }),
});

export const BinaryPart = Type.Object({
  ...ResourceFields,
  binary_prn: Prn('The binary this part belongs to.'),
  index: Type.Integer({ minimum: 1, maximum: PART_INDEX_MAX }),
  size: Type.Integer({ description: 'Declared part size in bytes.' }),
  hash: Sha256Hex('Declared lowercase hex SHA-256 of the part.'),
  expected_binary_size: Type.Integer(),
  state: OneOf<PartState>(PART_STATES, 'uploadable, invalid_size, invalid_hash or valid.'),
  presigned_upload_url: Type.Optional(Type.String({ description: 'Where to PUT the raw bytes (only in the PUT answer).' })),
});

export const PartBody = Type.Object({
  expected_binary_size: BinarySize("Must equal the binary's size."),
  hash: Sha256Hex('Lowercase hex SHA-256 of this part.'),
  size: Type.Integer({ minimum: 1, maximum: PART_SIZE_MAX, description: 'Part size: 5 MiB to 5 GiB, except the last part which may be smaller.' }),
});

export const BinarySignature = Type.Object({
  ...ResourceFields,
  binary_prn: Prn('The signed binary.'),
  signing_key_prn: Prn('The key that made the signature.'),
  signature: Type.String({ description: 'Lowercase hex Ed25519 signature over the ASCII hex hash.' }),
});
