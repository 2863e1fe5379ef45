/**
 * The update check's explanation in words (GET /devices/{prn}/update/explain): each step's reason
 * code as a sentence an operator can act on, with the times and values its detail carries. The
 * subject (a release or a bundle override) is shown beside it as a link; the code stays visible
 * in the title, for searching the releases reference.
 */
type Detail = Record<string, unknown>;

const when = (value: unknown) => (typeof value === 'string' ? new Date(value).toLocaleString() : 'a later time');

const REASONS: Record<string, (detail: Detail) => string> = {
  quarantined: () => 'The device is quarantined: it is offered nothing until it is released from quarantine.',
  no_cohort: () => 'The device has no cohort, so no release applies to it.',
  no_releases: () => 'Its cohort has no releases yet.',
  override_active: () => 'A bundle override active now includes this device: its bundle comes first.',
  override_not_active: () => 'A bundle override includes this device, but is not active at this time.',
  override_superseded: () => 'A newer bundle override for this device takes precedence over this one.',
  release_header: () => 'The device reported this release as the one it runs.',
  bundle_header: () => 'The device reported this bundle as the one it runs.',
  version_header: (d) => `The device reported version ${d.version ?? '(unknown)'}, which places it at this release.`,
  header_not_in_chain: (d) => `What the device reported (its ${d.header ?? 'position'}) is not in its cohort's releases.`,
  no_position: () => 'The device reported nothing that places it in its cohort\'s releases.',
  required_release: () => 'A required release comes first: the device must take it before any later one.',
  latest_release: () => 'This is the newest release of the cohort.',
  passed_over: () => 'Passed over on the way to a newer or required release.',
  at_latest: () => 'The device already runs the newest release it can be offered.',
  usable: () => 'This release can be offered to the device.',
  disabled: () => 'This release is disabled (halted by its health gate, or by an operator).',
  cancelled: () => 'This release was cancelled: it is never offered again.',
  paused: () => 'This release is paused: no new devices are offered it until it is resumed.',
  penalty_box: (d) => `The device failed this release too often and rests from it until ${when(d.rest_until)}.`,
  outside_maintenance_window: (d) => (d.next_window_at ? `Outside the maintenance window; the next one opens ${when(d.next_window_at)}.` : 'Outside the maintenance window, and no window opens again.'),
  scheduled: (d) => `This release is scheduled for ${when(d.schedule_date)}.`,
  requirement_not_met: (d) => `The device's version does not meet this release's requirement ${d.requirement ?? ''}`.trimEnd() + '.',
  phase_full: () => 'The phased rollout has no slot left for this device; it gets one when the phase grows.',
  not_in_phase_tags: () => 'The device has none of the tags this phased release is rolled out to.',
  phase_claimed: () => 'The device holds a slot of this phased release.',
  phase_slot_available: () => 'A slot of this phased release is free: a check now would take it.',
  nothing_usable: () => 'No release of the cohort can be offered to the device now.',
  unsigned_binaries: () => 'Some binaries of this bundle are not signed yet, so it cannot be offered.',
  signed: () => 'Every binary of the bundle is signed.',
  already_current: () => 'The device already runs this bundle: nothing to update.',
  new_for_device: () => 'The device does not run this bundle yet: it is offered.',
  concurrency_slot_held: () => 'The device holds one of the places under the release\'s concurrency cap.',
  concurrency_slot_available: () => 'A place under the release\'s concurrency cap is free: a check now would take it.',
  concurrency_full: (d) => `The release's concurrency cap is full (${d.updating ?? '?'} of ${d.max_concurrent ?? '?'} updating); the device is told to come back in ${d.retry_after_seconds ?? 'a few'} seconds.`,
};

/** The step's reason as a sentence; a reason this console does not know yet is shown as its code. */
export function reasonInWords(reason: string, detail: Detail = {}): string {
  return REASONS[reason]?.(detail) ?? reason.replace(/_/g, ' ');
}

const STATUS: Record<string, string> = {
  update: 'Offered an update',
  no_update: 'No update',
  device_quarantine: 'Quarantined: nothing is offered',
  retry_later: 'Told to come back later (the concurrency cap is full)',
};

/** The explanation's outcome as a phrase, with where an update comes from. */
export function statusInWords(status: string, sourceType: string | null): string {
  const phrase = STATUS[status] ?? status.replace(/_/g, ' ');
  if (status !== 'update' || !sourceType) return phrase;
  return `${phrase} from ${sourceType === 'bundle_override' ? 'a bundle override' : 'a release'}`;
}
