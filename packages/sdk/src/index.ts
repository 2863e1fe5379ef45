/** @canopy/sdk: the typed Canopy admin API client and its helpers. */
export { createCanopyClient, fillPath, queryString, type CanopyClient, type CanopyClientOptions, type Query, type RequestOptions } from './client';
export { CanopyApiError, CanopyNetworkError, type ApiErrorEntry } from './errors';
export { paginate, listAll, itemsOf, type PaginateOptions } from './paginate';
export { planFile, readPart, choosePartSize, DEFAULT_PART_SIZE, MIN_PART_SIZE, MAX_PARTS, type FilePlan, type PlannedPart } from './part-plan';
export { uploadBinary, uploadPart, findBinary, waitForSignable, type Binary, type BinaryPart, type UploadBinaryOptions, type UploadEvent } from './binary-upload';
export { signAndAttach, type BinarySignature } from './binary-signatures';
export { generateSigningKeyPair, keyPairFromPrivatePem, signBinaryHash, verifyBinarySignature, describePublicKey, type Ed25519KeyPair } from './signing';
export { verifyWebhook, signWebhook, PUBLISHED_AT_HEADER, SIGNATURE_HEADER } from './webhook-signature';
export type { paths as AdminApiPaths } from './generated/admin-api';
export type { FetchLike } from './transport';
