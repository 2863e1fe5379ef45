/**
 * Enrolled devices that call the real device API over mutual TLS with JSON bodies, for tests of
 * device routes (tunnels and the like). Enrollment goes through the admin API as a user would:
 * a CA registered with proof of possession (once per organization), a product, the device, and
 * its certificate registered. deviceRequest (device-client.ts) sends no body; this client does.
 */
import https from 'node:https';
import { makeLeafCertificate, makeRootCa, type TestCertificate } from './certificates';
import type { DeviceCredentials, DeviceTarget } from './device-client';
import { createDevice, createProduct, registerDeviceCertificate, registeredCa } from './device-fleet';
import { headersOf, readJsonBody } from './json-body';
import type { Api, ApiResponse } from './server';

/** What a connection closed before its TLS handshake finished fails with: the server shed it. */
const SHED_ERRORS = new Set(['ECONNRESET', 'EPIPE']);
/** How long a shed request keeps retrying, as a device would after its backoff. */
const SHED_RETRY_MS = 60_000;

export interface DeviceApiOptions {
  /**
   * Retry a request whose connection the server closed before the TLS handshake finished
   * (handshake shedding, device-api/handshake-shedding.ts), after a short jittered pause, as
   * devices do: nothing of the request reached the server. Default true: a loaded machine sheds
   * now and then, which is not what most tests test. A refused connection (no server) is never
   * retried. The reconnect-storm test sets false to count the shed attempts itself.
   */
  retryShed?: boolean;
}

/**
 * An `Api` that calls the device API at `target` presenting `credentials` (null: no client
 * certificate). `target` is read on every call, so a TestServer that restarts keeps working.
 * Each request opens its own TLS connection, so each is authenticated afresh.
 */
export function deviceApi(target: DeviceTarget, credentials: DeviceCredentials | null, { retryShed = true }: DeviceApiOptions = {}): Api {
  return async (method, path, body, options = {}) => {
    const url = new URL(path, target.deviceUrl);
    const headers: Record<string, string> = { ...options.headers };
    let payload: string | Uint8Array | undefined = options.raw;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
    const giveUpAt = Date.now() + SHED_RETRY_MS;
    for (;;) {
      try {
        return await requestOnce(url, method, headers, payload, target, credentials);
      } catch (error) {
        const shed = error instanceof ShedError;
        if (!shed || !retryShed || Date.now() > giveUpAt) throw shed ? error.cause : error;
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200));
      }
    }
  };
}

/** A connection closed by the server before its TLS handshake finished; `cause` is the socket's error. */
class ShedError extends Error {}

function requestOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  payload: string | Uint8Array | undefined,
  target: DeviceTarget,
  credentials: DeviceCredentials | null,
): Promise<ApiResponse<never>> {
  return new Promise<ApiResponse<never>>((resolve, reject) => {
    let secured = false;
    const request = https.request(
      url,
      { method, headers, ca: target.deviceServerCaPem, agent: false, cert: credentials?.certPem, key: credentials?.keyPem },
      (response) => {
        readJsonBody(response).then((body) => resolve({ status: response.statusCode ?? 0, body: body as never, headers: headersOf(response) }), reject);
      },
    );
    request.on('socket', (socket) => socket.once('secureConnect', () => (secured = true)));
    request.on('error', (error: NodeJS.ErrnoException) => {
      reject(!secured && SHED_ERRORS.has(error.code ?? '') ? new ShedError('shed before the TLS handshake', { cause: error }) : error);
    });
    request.end(payload);
  });
}

export interface EnrolledDevice {
  prn: string;
  identifier: string;
  certificate: TestCertificate;
  /** Calls the device API as this device, through `target` (the test server unless told). */
  api: Api;
  /** The same device through another server's device API (another process on the database). */
  via(target: DeviceTarget): Api;
}

/** An organization as the test server hands it out: its admin client and its id. */
export interface Organization {
  api: Api;
  organizationId: string;
}

let serial = 0;

/**
 * Enrolls devices with registered certificates. One CA and one product per organization, made
 * on first use; `target` (usually the TestServer) is where each device's `api` calls.
 */
export function deviceEnrollment(target: DeviceTarget) {
  const setups = new Map<string, Promise<{ ca: TestCertificate; productPrn: string }>>();

  function setupOf(organization: Organization) {
    let setup = setups.get(organization.organizationId);
    if (!setup) {
      setup = (async () => {
        const ca = await makeRootCa();
        await registeredCa(organization.api, ca);
        const productPrn = await createProduct(organization.api, `device-product-${++serial}`);
        return { ca, productPrn };
      })();
      setups.set(organization.organizationId, setup);
      // A failed setup is not kept: the next test tries again and reports its own failure.
      setup.catch(() => setups.delete(organization.organizationId));
    }
    return setup;
  }

  return {
    async device(organization: Organization, identifier = `enrolled-device-${process.pid}-${++serial}`): Promise<EnrolledDevice> {
      const { ca, productPrn } = await setupOf(organization);
      const device = await createDevice(organization.api, productPrn, identifier);
      const certificate = await makeLeafCertificate(ca, identifier);
      await registerDeviceCertificate(organization.api, device.prn, certificate);
      return {
        prn: device.prn,
        identifier,
        certificate,
        api: deviceApi(target, certificate),
        via: (other) => deviceApi(other, certificate),
      };
    },
  };
}
