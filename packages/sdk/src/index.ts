/** @canopy/sdk: the typed Canopy admin API client and its helpers. */
export { createCanopyClient, fillPath, queryString, type CanopyClient, type CanopyClientOptions, type Query, type RequestOptions } from './client';
export { CanopyApiError, CanopyNetworkError, type ApiErrorEntry } from './errors';
export { paginate, listAll, itemsOf, type PaginateOptions } from './paginate';
export { planFile, readPart, choosePartSize, DEFAULT_PART_SIZE, MIN_PART_SIZE, MAX_PARTS, type FilePlan, type PlannedPart, type PartPlan } from './part-plan';
export { uploadBinary, uploadPart, uploadPlannedBinary, findBinary, waitForSignable, type Binary, type BinaryPart, type UploadBinaryOptions, type PlannedUploadOptions, type PartReader, type UploadEvent } from './binary-upload';
export { planBlob, readBlobPart, type BlobPlanOptions } from './blob-plan';
export { signerFromPrivateKeyPem, webCryptoHasEd25519, SigningKeyFileError, type WebCryptoSigner } from './webcrypto-signing';
export { signAndAttach, type BinarySignature } from './binary-signatures';
export { generateSigningKeyPair, keyPairFromPrivatePem, signBinaryHash, verifyBinarySignature, describePublicKey, signingKeyPublicKey, type Ed25519KeyPair } from './signing';
export { verifyWebhook, signWebhook, PUBLISHED_AT_HEADER, SIGNATURE_HEADER } from './webhook-signature';
export type { paths as AdminApiPaths } from './generated/admin-api';
export type { FetchLike } from './transport';
export { createDeviceClient, type DeviceClient, type DeviceClientOptions, type DevicePosition, type UpdateCheck, type UpdateReport, type UpdateReportBody } from './device/client';
export type { paths as DeviceApiPaths } from './generated/device-api';
export { followEvents, type CanopyEvent, type EventStreamFilters, type FollowEventsOptions } from './event-stream';
export { createSseParser, type SseMessage } from './sse-parser';
export { uploadFirmware, type FirmwareUploadTarget, type LegacyFirmware } from './firmware-upload';
export { EVENT_CATALOGUE, EVENT_NAMES, EVENT_TYPES, EVENT_SUBTYPES, SUBSCRIBABLE_EVENTS, subtypesOf, catalogueEntry, eventName, type CatalogueEntry, type EventName, type EventType, type EventSubtype, type SubscribableEventName } from './event-catalogue';
