/**
 * @canopy/sdk/browser: the parts of the SDK that run in a browser (no Node modules): the typed
 * client, errors, pagination, the live event stream, binary uploads from a Blob and Ed25519
 * signing with WebCrypto. The web console imports this.
 */
export { createCanopyClient, fillPath, queryString, type CanopyClient, type CanopyClientOptions, type Query, type RequestOptions } from './client-core';
export { CanopyApiError, CanopyNetworkError, type ApiErrorEntry } from './errors';
export { paginate, listAll, itemsOf, type PaginateOptions } from './paginate';
export { followEvents, type CanopyEvent, type EventStreamFilters, type FollowEventsOptions } from './event-stream';
export { createSseParser, type SseMessage } from './sse-parser';
export type { paths as AdminApiPaths } from './generated/admin-api';
export type { FetchLike } from './fetch-like';
export { choosePartSize, DEFAULT_PART_SIZE, MIN_PART_SIZE, MAX_PARTS, type PartPlan, type PlannedPart } from './part-sizes';
export { planBlob, readBlobPart, type BlobPlanOptions } from './blob-plan';
export { uploadPlannedBinary, findBinary, waitForSignable, type Binary, type BinaryPart, type PlannedUploadOptions, type UploadEvent, type PartReader } from './binary-upload-core';
export { signerFromPrivateKeyPem, webCryptoHasEd25519, SigningKeyFileError, type WebCryptoSigner } from './webcrypto-signing';
export { EVENT_CATALOGUE, EVENT_NAMES, EVENT_TYPES, EVENT_SUBTYPES, SUBSCRIBABLE_EVENTS, subtypesOf, catalogueEntry, eventName, type CatalogueEntry, type EventName, type EventType, type EventSubtype, type SubscribableEventName } from './event-catalogue';
