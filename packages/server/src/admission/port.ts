/**
 * The narrow port between the device API (device-api/, which admits a request) and the update
 * check (updates/, whose write can prove that admission): what one hands the other, and the SQL
 * that proves a guard. It imports neither side, so the two contexts never import each other.
 *   - `AdmissionGuard` (its CTE and parameters): an admission proven by the check's own statement
 *     (updates/check-writes.ts) instead of a statement before it;
 *   - `PendingConnectionWrites`: a new connection's `device.connected` and last_connected_at, in
 *     that same statement, so a connection asking for an update costs one commit;
 *   - `GuardedAdmission`: a guard to prove, and how to admit the full way when it cannot.
 * See ARCHITECTURE.md, "The path of a device GET /update".
 */
import { parameterArrays, unnestParameters } from '../db/array-parameters';
import type { NewEvent } from '../events/service';

/**
 * A request's admission, proven by the write of its own update check instead of a statement
 * before it (device-api/connection-auth.ts, updates/check-writes.ts): the device row as the
 * connection last read it (or, on a reconnecting device's new connection, as this process last
 * admitted it), by its version, and the certificate the connection presented. The guard holds
 * when the certificate is still registered to the device, the device belongs to the organization
 * and is not archived, its row is the version read, and on a new connection the CA that vouched
 * for the chain is still registered: the check was resolved on the row as it is, and the device
 * would be admitted now. Any change to the row (PATCH, an archive, the device's own reported
 * state, last_connected_at) gives it a new version, so the guard fails and the request is
 * admitted the full way and its check resolved again; a false "changed" costs one statement,
 * and a row keeps its version until it is written.
 */
export interface AdmissionGuard {
  deviceId: string;
  organizationId: string;
  fingerprint: string;
  /** The device row's version as read (PostgreSQL's xmin, device-api/admissions.ts AdmissionResult). */
  version: string;
  /** A new connection: the registered CA its chain verified against, which must still be registered. */
  caId: string | null;
}

/** The types of a guard's parameters: its number, device, organization, certificate fingerprint, row version, CA. */
const GUARD_TYPES = ['int8', 'uuid', 'uuid', 'text', 'text', 'uuid'];

/**
 * The CTE `admission_guards_held`: the `ord` (from 1, in array order) of each guard that holds,
 * as of the statement's snapshot, over six parameter arrays from `$first` (admissionGuardArrays).
 */
export function admissionGuardCte(first: number): string {
  return `admission_guards_held as materialized (
    select g.ord from ${unnestParameters(first, GUARD_TYPES)} as g(ord, device_id, organization_id, fingerprint, version, ca_id)
    join devices d on d.id = g.device_id and d.organization_id = g.organization_id and d.xmin = g.version::xid and not d.archived
    where exists (select 1 from device_certificates dc where dc.fingerprint = g.fingerprint and dc.device_id = g.device_id)
      and (g.ca_id is null or exists (select 1 from ca_certificates c where c.id = g.ca_id)))`;
}

/** The parameter arrays of admissionGuardCte for `guards`, numbered from 1. */
export function admissionGuardArrays(guards: readonly AdmissionGuard[]): string[] {
  return parameterArrays(GUARD_TYPES, [
    guards.map((_, i) => i + 1),
    guards.map((g) => g.deviceId),
    guards.map((g) => g.organizationId),
    guards.map((g) => g.fingerprint),
    guards.map((g) => g.version),
    guards.map((g) => g.caId),
  ]);
}

/** A device's new connection, written by its update check's statement. */
export interface ConnectionWrites {
  /** `device.connected`, recorded before the check's own events. */
  event: NewEvent;
  /** Write last_connected_at, unless some process wrote it within the interval. */
  touch: boolean;
}

/** Connection writes waiting for a statement to carry them; `recorded` once one has. */
export interface PendingConnectionWrites {
  writes: ConnectionWrites;
  recorded: boolean;
}

/**
 * A request's admission left for the update check's write to prove: the guard, and `confirm`,
 * which admits the device the full way when the write could not prove it (it throws the 401 when
 * the device is refused) and answers the device row as it now reads.
 */
export interface GuardedAdmission<Device> {
  guard: AdmissionGuard;
  confirm(): Promise<Device>;
}
