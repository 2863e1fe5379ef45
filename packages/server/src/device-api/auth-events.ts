/**
 * The events of device authentication: `device.connected` once per new connection (beside the
 * throttled `last_connected_at` write) and `device.authentication_failed` when the
 * organization is known. Failures are throttled per certificate and reason, because a refused
 * device typically retries in a loop and one event a minute tells the story.
 */
import { recordEvent, recordEventsInOneStatement } from '../events/service';
import type { DeviceRow } from '../certificates/device-certificate-lookup';
import { LastConnectedThrottle, touchLastConnected } from '../devices/last-connected';
import { resourcePrn } from '../http/prn';
import type { Platform } from '../platform';
import type { DeviceAuthFailure } from './failures';

const FAILURE_EVENT_INTERVAL_MS = 60_000;
const MAX_THROTTLE_ENTRIES = 100_000;

export class DeviceAuthEvents {
  private readonly lastConnected = new LastConnectedThrottle();
  private readonly failuresRecorded = new Map<string, number>();

  constructor(private readonly platform: Platform) {}

  /**
   * Answers the device with last_connected_at as written, so the request sees its own visit.
   * The event is one statement (with its webhook outbox rows) and the throttled touch another,
   * sent side by side rather than in a transaction: each is atomic on its own, and a new
   * connection then costs one round trip, two when the touch is due.
   */
  async connected(device: DeviceRow, fingerprint: string, ip: string, headers: Record<string, string>): Promise<DeviceRow> {
    const prn = resourcePrn(device.organizationId, 'device', device.id);
    const event = {
      organizationId: device.organizationId,
      type: 'device' as const,
      subtype: 'connected',
      actorPrn: prn,
      resourcePrn: prn,
      data: { device_prn: prn, ip, certificate_fingerprint: fingerprint, headers },
    };
    const touch = this.lastConnected.due(device.id) ? touchLastConnected(this.platform.db, device.id) : null;
    const [written] = await Promise.all([touch, recordEventsInOneStatement(this.platform.db, [event])]);
    return written ? { ...device, lastConnectedAt: written } : device;
  }

  /** Every authenticated request: keeps last_connected_at fresh on long-lived connections. */
  async seen(device: DeviceRow): Promise<DeviceRow> {
    const written = this.lastConnected.due(device.id) ? await touchLastConnected(this.platform.db, device.id) : null;
    return written ? { ...device, lastConnectedAt: written } : device;
  }

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
