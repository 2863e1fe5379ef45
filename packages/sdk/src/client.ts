/**
 * The Canopy client for Node: the client of client-core.ts with a transport that can trust a
 * private CA (`caPath`, through undici). Browsers import `@canopy/sdk/browser` instead.
 */
import { createCanopyClient as createCoreClient, type CanopyClient, type CanopyClientOptions as CoreOptions } from './client-core';
import { createFetch } from './transport';

export { fillPath, queryString, type CanopyClient, type Query, type RequestOptions } from './client-core';

export interface CanopyClientOptions extends CoreOptions {
  /** PEM file of a CA to trust for HTTPS (self-hosted servers with a private CA). */
  caPath?: string;
}

export function createCanopyClient(options: CanopyClientOptions): CanopyClient {
  return createCoreClient({ ...options, fetch: options.fetch ?? createFetch(options.caPath) });
}
