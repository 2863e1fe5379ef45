/**
 * Virtual devices for the soak and the reconnect storm: the fleet simulator's set-up and
 * certificates (packages/daemon/src/simulator, used as a library: a JITP CA, a cohort, a signed
 * release) and the SDK's device client (`@canopy/sdk/device`, what canopy-daemon speaks with:
 * mutual TLS, kept-alive connections, jittered retries). A check-in is one `GET /update`; a device
 * offered the release reports it installed and runs it from then on (no download: these
 * benchmarks measure the server under check-ins, not the daemon's download path).
 */
import { createDeviceClient, type DeviceClient } from '@canopy/sdk/device';
import { issueLeaf } from '../../packages/daemon/src/simulator/certificates';
import { adminApi, publishRelease, setUpFleet, type AdminApi } from '../../packages/daemon/src/simulator/fleet-setup';

export interface SimulatedDevice {
  identifier: string;
  client: DeviceClient;
  releasePrn: string | null;
}

export interface SimulatedFleetRun {
  api: AdminApi;
  releasePrn: string;
  devices: SimulatedDevice[];
}

/** A fleet of `count` devices (certificates issued, not yet connected) and a release for them. */
export async function simulatedFleet(options: { adminUrl: string; apiKey: string; deviceUrl: string; serverCaPem: string; count: number; attempts?: number }): Promise<SimulatedFleetRun> {
  const api = adminApi(options.adminUrl, options.apiKey);
  const name = `bench-${Date.now().toString(36)}`;
  const fleet = await setUpFleet(api, name);
  const release = await publishRelease(api, fleet, { size: 1024, version: '1.0.0' });
  const devices: SimulatedDevice[] = [];
  for (let i = 0; i < options.count; i++) {
    const identifier = `${name}-${String(i).padStart(6, '0')}`;
    const certificate = await issueLeaf(fleet.ca, identifier);
    const client = createDeviceClient({ baseUrl: options.deviceUrl, certPem: certificate.certPem, keyPem: certificate.keyPem, caPem: options.serverCaPem, attempts: options.attempts });
    devices.push({ identifier, client, releasePrn: null });
  }
  return { api, releasePrn: release.releasePrn, devices };
}

/** One check-in; answers whether the device was offered the release (and then runs it). */
export async function checkIn(device: SimulatedDevice): Promise<boolean> {
  const answer = (await device.client.checkForUpdate({ releasePrn: device.releasePrn }, ['release', 'bundle'])) as { status: string; release?: { prn: string }; bundle?: { prn: string } };
  if (answer.status !== 'update' || !answer.release || !answer.bundle) return false;
  await device.client.report({ status: 'installed', release_prn: answer.release.prn, bundle_prn: answer.bundle.prn } as never);
  device.releasePrn = answer.release.prn;
  return true;
}

/** Latencies (ms) of `call`, repeated every `everyMs` until `stop()`. */
export function latencyProbe(call: () => Promise<unknown>, everyMs: number) {
  const latencies: number[] = [];
  let failures = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        await call();
        latencies.push(performance.now() - started);
      } catch {
        failures++;
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    latencies,
    failures: () => failures,
    async stop() {
      running = false;
      await loop;
    },
  };
}

export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
