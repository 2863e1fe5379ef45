/**
 * The events of device authentication: `device.connected` once per new connection (recorded by
 * the admission statement, admissions.ts, beside the throttled `last_connected_at` write, or when
 * the first request is GET /update by its check's statement: connection-auth.ts) and
 * `device.authentication_failed` when the organization is known. Failures are throttled per
 * certificate and reason, because a refused device typically retries in a loop and one event a
 * minute tells the story.
 */
import { recordEvent, type NewEvent } from '../events/service';
import { resourcePrn } from '../http/prn';
import type { Platform } from '../platform';
import type { DeviceAuthFailure } from './failures';

const FAILURE_EVENT_INTERVAL_MS = 60_000;
const MAX_THROTTLE_ENTRIES = 100_000;

/** `device.connected` for a device's new connection, with the request's monitored headers. */
export function connectedEvent(device: { id: string; organizationId: string }, fingerprint: string, ip: string, headers: Record<string, string>): NewEvent {
  const prn = resourcePrn(device.organizationId, 'device', device.id);
  return {
    organizationId: device.organizationId,
    type: 'device',
    subtype: 'connected',
    actorPrn: prn,
    resourcePrn: prn,
    data: { device_prn: prn, ip, certificate_fingerprint: fingerprint, headers },
  };
}

export class DeviceAuthFailureEvents {
  private readonly failuresRecorded = new Map<string, number>();

  constructor(private readonly platform: Platform) {}

  async failed(failure: DeviceAuthFailure, ip: string): Promise<void> {
    if (!failure.organizationId) return;
    const key = `${failure.organizationId}|${failure.fingerprint}|${failure.reason}`;
    const now = Date.now();
    const last = this.failuresRecorded.get(key);
    if (last !== undefined && now - last < FAILURE_EVENT_INTERVAL_MS) return;
    if (this.failuresRecorded.size >= MAX_THROTTLE_ENTRIES) this.failuresRecorded.clear();
    this.failuresRecorded.set(key, now);
    await recordEvent(this.platform.db, {
      organizationId: failure.organizationId,
      type: 'device',
      subtype: 'authentication_failed',
      actorPrn: failure.devicePrn,
      resourcePrn: failure.devicePrn ?? failure.caPrn,
      data: {
        reason: failure.reason,
        ...(failure.detail ? { detail: failure.detail } : {}),
        device_prn: failure.devicePrn,
        ca_certificate_prn: failure.caPrn,
        certificate_fingerprint: failure.fingerprint,
        common_name: failure.commonName,
        ip,
      },
    });
  }
}
