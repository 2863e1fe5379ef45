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
