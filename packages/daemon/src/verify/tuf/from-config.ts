/** The daemon's TUF verifier when its configuration has `tuf`, over its own device TLS transport. */
import { createDeviceTransport } from '@canopy/sdk/device';
import type { DaemonConfig } from '../../config/types.ts';
import { createTufVerifier, type TufVerifier } from './verifier.ts';

export function tufVerifierOf(config: DaemonConfig, tls: { certPem: Buffer | string; keyPem: Buffer | string; caPem?: Buffer | string }): TufVerifier | undefined {
  if (!config.tuf) return undefined;
  const transport = createDeviceTransport({ baseUrl: config.device_api.url, certPem: tls.certPem, keyPem: tls.keyPem, caPem: tls.caPem });
  return createTufVerifier({ rootPath: config.tuf.root, product: config.tuf.product, stateDir: config.state_dir, transport });
}
