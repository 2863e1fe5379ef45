/**
 * tuf-js's Fetcher over the device API's mutual TLS: metadata comes from `/tuf/{file}` with the
 * device certificate, like every other device call, never over plain HTTP. A body longer than
 * the length tuf-js allows is refused before it is parsed.
 */
import type { Fetcher } from 'tuf-js';
// tuf-js ends the root chain on its own DownloadHTTPError 404, so the fetcher throws its classes.
import { DownloadHTTPError, DownloadLengthMismatchError } from 'tuf-js/dist/error.js';
import type { DeviceTransport } from '@canopy/sdk/device';

export class MetadataFetchError extends Error {
  constructor(
    message: string,
    readonly kind: 'http' | 'length',
  ) {
    super(message);
  }
}

export function deviceFetcher(transport: DeviceTransport, metadataBaseUrl: string): Fetcher {
  async function downloadBytes(url: string, maxLength: number): Promise<Buffer> {
    if (!url.startsWith(metadataBaseUrl)) throw new MetadataFetchError(`refusing to fetch ${url} outside ${metadataBaseUrl}`, 'http');
    const response = await transport.send('GET', new URL(url).pathname);
    if (response.status !== 200) throw new DownloadHTTPError(`GET ${new URL(url).pathname} answered ${response.status}`, response.status);
    const body = Buffer.from(response.text, 'utf8');
    if (body.length > maxLength) throw new DownloadLengthMismatchError(`${new URL(url).pathname} is longer than ${maxLength} bytes`);
    return body;
  }
  return {
    downloadBytes,
    async downloadFile(url, maxLength, handler) {
      throw new MetadataFetchError(`targets are downloaded by the daemon, not tuf-js (${url}, ${maxLength}, ${typeof handler})`, 'http');
    },
  };
}
