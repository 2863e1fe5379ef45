/**
 * Data of events that tests record by hand, valid for the event catalogue (src/events/catalogue.ts),
 * which recordEvent enforces under test.
 */

/** `device.release_changed` data naming a device `identifier`: tests tell their events apart by it. */
export function releaseChangedData(identifier: string) {
  return {
    device: { prn: 'prn:1:9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70:device:0b6f1c2e-5d4a-4c3b-8a9f-1e2d3c4b5a69', identifier, cohort: null },
    from_release: null,
    to_release: null,
    from_bundle: null,
    to_bundle: null,
  };
}

/** `device.update_reported` data of the device `devicePrn` (its device object reduced to the prn the schema asks for). */
export function updateReportedData(devicePrn: string, fields: { status: string; reason?: string | null; progress?: number | null }) {
  return { device: { prn: devicePrn }, release: null, bundle: 'prn:1:9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70:bundle:0b6f1c2e-5d4a-4c3b-8a9f-1e2d3c4b5a69', progress: null, reason: null, ...fields };
}

/** `device.checked_for_release` data of the device `devicePrn`: a check that found nothing to offer. */
export function checkedForReleaseData(devicePrn: string) {
  return {
    device: { prn: devicePrn, identifier: null, cohort: null },
    status: 'no_update',
    source_type: null,
    release: null,
    bundle: null,
    bundle_override: null,
    reported: { release_prn: null, bundle_prn: null, release_version: null },
  };
}

/** `device.connected` data of the device `devicePrn`. */
export function connectedData(devicePrn: string) {
  return {
    device: { prn: devicePrn, identifier: null, cohort: null },
    ip_address: '127.0.0.1',
    certificate: { authority_key_identifier: null, common_name: null, fingerprint: '00' },
    ca_certificate: null,
    route: '/update',
    headers: {},
  };
}
