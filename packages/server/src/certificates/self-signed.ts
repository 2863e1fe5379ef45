// The device API's own TLS identity when the operator configures none: a private CA made once at
// first start plus a server certificate it signs. Devices pin the CA, so the server certificate
// can be re-issued (new hostnames, renewal) from the stored CA without touching any device.
// Pure: returns PEM strings; the caller writes them into CANOPY_DATA_DIR.
import { issueCertificate, type IssuedCertificate } from './issue';

export interface ServerIdentityPems {
  caCertPem: string;
  /** PKCS#8 PEM; keep it (mode 0600) to re-issue the server certificate later. */
  caKeyPem: string;
  serverCertPem: string;
  serverKeyPem: string;
}

/** Always present in the server certificate so local tools and tests can connect. */
export const LOCAL_SERVER_NAMES = ['localhost', '127.0.0.1'] as const;

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;
// Devices pin the CA for their whole service life; the server certificate is cheap to re-issue.
const CA_LIFETIME_MS = 20 * YEAR_MS;
const SERVER_CERTIFICATE_LIFETIME_MS = 5 * YEAR_MS;

export interface ServerIdentityOptions {
  /** Public hostnames / IP addresses of the device API; localhost and 127.0.0.1 are added. */
  hostnames?: readonly string[];
  now?: Date;
}

export async function generateServerIdentity(options: ServerIdentityOptions = {}): Promise<ServerIdentityPems> {
  const notBefore = backdated(options.now);
  const ca = await issueCertificate({
    subject: { commonName: 'Canopy device API CA', organization: 'Canopy' },
    isCa: true,
    pathLength: 0,
    notBefore,
    notAfter: new Date(notBefore.getTime() + CA_LIFETIME_MS),
  });
  const server = await issueServerCertificate(ca, options);
  return { caCertPem: ca.certPem, caKeyPem: ca.keyPem, serverCertPem: server.certPem, serverKeyPem: server.keyPem };
}

/** Issues a server certificate from an existing CA (e.g. after the hostname list changed). */
export async function issueServerCertificate(ca: IssuedCertificate, options: ServerIdentityOptions = {}): Promise<IssuedCertificate> {
  const names = serverNames(options.hostnames ?? []);
  const notBefore = backdated(options.now);
  return issueCertificate({
    subject: names[0],
    issuer: ca,
    serverNames: names,
    notBefore,
    notAfter: new Date(notBefore.getTime() + SERVER_CERTIFICATE_LIFETIME_MS),
  });
}

/** Configured names first (the first becomes the CN), then the local ones, without duplicates. */
export function serverNames(hostnames: readonly string[]): string[] {
  const names = [...hostnames, ...LOCAL_SERVER_NAMES].map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  return [...new Set(names)];
}

// A minute's slack so devices whose clock lags slightly accept a certificate made just now.
function backdated(now: Date = new Date()): Date {
  return new Date(now.getTime() - 60_000);
}
