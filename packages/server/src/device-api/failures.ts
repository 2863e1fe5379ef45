/**
 * Why a device was refused. The spec's own reasons (device_is_archived, multi_cert_jitr_disabled,
 * jitp_disabled, jitp_failed) plus the chain check's (unknown_ca, expired, self_signed ...).
 * Each failure carries what is known about the caller, so the event goes to the right organization.
 */
import type { ChainFailureReason } from '../certificates/chain';

export type DeviceAuthReason =
  | ChainFailureReason
  | 'device_is_archived'
  | 'multi_cert_jitr_disabled'
  | 'jitp_disabled'
  | 'jitp_failed'
  /** The certificate was deleted while its connection stayed open. */
  | 'certificate_not_registered';

export interface DeviceAuthFailure {
  ok: false;
  reason: DeviceAuthReason;
  /** Detail for the 401 body and the event (e.g. why provisioning failed). */
  detail?: string;
  /** Which certificate of the chain a chain failure is about. */
  position?: string;
  /** Set when the organization is known (a registered CA or device was found): an event is recorded. */
  organizationId: string | null;
  devicePrn: string | null;
  caPrn: string | null;
  fingerprint: string | null;
  commonName: string | null;
}

export type FailureFacts = Partial<Omit<DeviceAuthFailure, 'ok' | 'reason'>>;

export function authFailure(reason: DeviceAuthReason, facts: FailureFacts = {}): DeviceAuthFailure {
  return {
    ok: false,
    reason,
    organizationId: facts.organizationId ?? null,
    devicePrn: facts.devicePrn ?? null,
    caPrn: facts.caPrn ?? null,
    fingerprint: facts.fingerprint ?? null,
    commonName: facts.commonName ?? null,
    ...(facts.detail ? { detail: facts.detail } : {}),
    ...(facts.position ? { position: facts.position } : {}),
  };
}
