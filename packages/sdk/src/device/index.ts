/**
 * @canopy/sdk/device: the device API client (mutual TLS), kept apart from the admin client so a
 * device agent bundles only this and Node's own modules.
 */
export { createDeviceClient, type CallOptions, type DeviceClient, type DeviceClientOptions, type DeviceMe, type DevicePosition, type ManifestEntry, type ManifestSignature, type Tunnel, type TunnelCloseBody, type TunnelConfigureBody, type TunnelList, type UpdateCheck, type UpdateReport, type UpdateReportBody } from './client';
export { createDeviceTransport, type DeviceTlsOptions, type DeviceTransport, type RawResponse, type SendOptions } from './transport';
export { backoffDelayMs, isRetryable, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff';
export { CanopyApiError, CanopyNetworkError } from '../errors';
export { bundleSignatureMessage, verifyBundleSignature, type SignedBinary } from '../bundle-signing';
