/**
 * The events of device authentication: `device.connected` once per new connection (recorded by
 * the admission statement, admissions.ts, beside the throttled `last_connected_at` write, or when
 * the first request is GET /update by its check's statement: connection-auth.ts) and
 * `device.authentication_failed` when the organization is known. Failures are throttled per
 * certificate and reason, because a refused device typically retries in a loop and one event a
 * minute tells the story.
 */
import { recordEvent, type NewEvent } from '../events/service';
import { resourcePrn } from '../core/prn';
import type { Platform } from '../platform';
import type { DeviceAuthFailure } from './failures';

const FAILURE_EVENT_INTERVAL_MS = 60_000;
const MAX_THROTTLE_ENTRIES = 100_000;

/** What a new connection tells about itself, computed once per connection for `device.connected`. */
export interface ConnectionFacts {
  ip: string;
  /** The path of the connection's first request (no query string). */
  route: string;
  /** The monitored headers of the first request (monitored-headers.ts). */
  headers: Record<string, string>;
  certificate: { authority_key_identifier: string | null; common_name: string | null; fingerprint: string };
  /** The registered CA that vouched for the chain; null only when this process no longer remembers it. */
  ca_certificate: { common_name: string | null; fingerprint: string } | null;
}

/** A device row as an event names it: the public API's device object (events reference page). */
export interface EventDevice {
  id: string;
  organizationId: string;
  identifier: string;
  cohortId: string | null;
}

/**
 * The `device` object of a device event, from the row in hand. Its cohort's name is not known
 * here: the statement that records the event fills the object in from the device row it reads
 * (admissions.ts), or the update check replaces it with its own (updates/service.ts).
 */
export function eventDeviceObject(device: EventDevice) {
  const org = device.organizationId;
  return {
    prn: resourcePrn(org, 'device', device.id),
    identifier: device.identifier,
    cohort: device.cohortId === null ? null : { cohort_prn: resourcePrn(org, 'cohort', device.cohortId), cohort_name: null as string | null },
  };
}

/** `device.connected` for a device's new connection. */
export function connectedEvent(device: EventDevice, facts: ConnectionFacts): NewEvent {
  const prn = resourcePrn(device.organizationId, 'device', device.id);
  return {
    organizationId: device.organizationId,
    type: 'device',
    subtype: 'connected',
    actorPrn: prn,
    resourcePrn: prn,
    data: {
      device: eventDeviceObject(device),
      ip_address: facts.ip,
      certificate: facts.certificate,
      ca_certificate: facts.ca_certificate,
      route: facts.route,
      headers: facts.headers,
    },
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
