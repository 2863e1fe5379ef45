/**
 * Safe rollouts on the admin API: `GET /releases/{prn}/rollout`, `POST /releases/dry_run` and
 * `POST /releases/{prn}/revert` (site/docs/canopy-core/guides/rolling-out-safely.md).
 */
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { Name, NoContent, Nullable, Prn, PrnParams, single, STANDARD_ERRORS, Timestamp } from '../http/schemas';
import { NOT_ELIGIBLE_REASONS } from './fleet';
import { DryRunBody, dryRun, Release, releaseFields, revertRelease, rolloutProgress } from './service';
import { controlRelease } from './controls';
import { devicePenalties, releaseFromPenaltyBox, releasePenalties } from './penalty-box';
import { releaseToWire } from './neighbours';
import type { ReleaseControl } from './control-rules';

const count = (description: string) => Type.Integer({ minimum: 0, description });

const NotEligible = Type.Object(
  Object.fromEntries(NOT_ELIGIBLE_REASONS.map((reason) => [reason, count(`Devices not eligible because: ${reason}.`)])),
  {
    description:
      'Devices of the cohort the update check would not give this release now, by the first reason their resolution met: ' +
      'quarantined; version_requirement (the device version does not meet it); phase_tags (no shared tag); required_release_first ' +
      '(a required release before it must come first); bundle_override (an active override pins the device); target (the bundle is ' +
      "not signed for the device's target); release_disabled; release_paused (only devices already holding a phase slot keep it); release_cancelled; scheduled; outside_maintenance_window (no window open now: see next_window_at on the dry run); already_on_or_past (the device runs it or a later one); " +
      'passed_over (a later release is offered instead).',
  },
);

const Reported = Type.Object(
  {
    downloading: count('Latest report: downloading.'),
    installing: count('Latest report: installing.'),
    rebooting: count('Latest report: rebooting.'),
    installed: count('Latest report: installed (on a release with a soak: still soaking).'),
    confirmed: count('Latest report: installed, then healthy for the release\'s soak (only on a release with soak_seconds).'),
    failed: count('Latest report: failed.'),
    rolled_back: count('Latest report: rolled_back.'),
    deferred: count('Latest report: deferred (its readiness command said not now).'),
  },
  { description: "Devices per status of their latest report for this release (POST /update/reports on the device API)." },
);

const Rollout = Type.Object({
  release_prn: Prn('The release.'),
  phase_value: Nullable(Type.Number()),
  cohort_devices: count('Devices in the cohort now.'),
  eligible: count('Devices the update check would give this release now, the phase size aside (as of eligibility_evaluated_at).'),
  claimed: Nullable(count('Phase slots taken (phased releases); null when the release is not phased.')),
  reported: Reported,
  on_release: count('Devices whose reported release is this one.'),
  halted_at: Nullable(Timestamp('When the health gate halted the release.')),
  paused_at: Nullable(Timestamp('When an operator paused the release.')),
  cancelled_at: Nullable(Timestamp('When an operator cancelled the release.')),
  updating: count('Devices whose latest report for the release is downloading, installing or rebooting.'),
  succeeded: count('Devices that finished the release successfully: installed, or on a release with a soak, confirmed (healthy for soak_seconds after installing). The health gate counts these.'),
  soaking: count('Devices installed and still soaking (a release with soak_seconds): not yet counted as succeeded, nor by the health gate.'),
  soak_seconds: Nullable(Type.Integer({ description: "The release's soak; null: none." })),
  deferred: count('Devices whose latest report defers the release: their readiness command said not now (the report\'s reason says why).'),
  max_concurrent: Nullable(Type.Integer({ description: "The release's concurrency cap; null when it has none." })),
  updating_now: count('Devices holding a place under the concurrency cap now: offered the release, no finishing (or deferring) report yet, place not timed out. 0 without a cap.'),
  resting: count('Devices resting from the release in the penalty box now (GET /releases/{prn}/penalty_box lists them).'),
  halt_reason: Nullable(Type.String({ description: '`failure_ratio` when halted by the health gate.' })),
  disabled: Type.Boolean(),
  halt_failure_ratio: Nullable(Type.Number()),
  halt_min_reports: Type.Integer(),
  not_eligible: NotEligible,
  eligibility_evaluated_at: Timestamp(
    'When eligible and not_eligible were evaluated: the last evaluation is served, and one older than 5 s is taken again in the background; after a chain change the answer waits for a new one.',
  ),
});

const DryRun = Type.Object({
  valid: Type.Boolean({ description: 'POST /releases would accept this body now.' }),
  errors: Type.Array(Type.Object({ code: Type.String(), context: Type.Record(Type.String(), Type.Unknown()) }), {
    description: 'What POST /releases would refuse, in its error shape (empty when valid).',
  }),
  position: Type.Object({ previous_release_prn: Nullable(Type.String()), next_release_prn: Nullable(Type.String()) }, { description: 'Where the release would go in the chain.' }),
  cohort_devices: count('Devices in the cohort now.'),
  eligible: count('Devices the update check would give the release, the phase size aside.'),
  would_claim: count('Devices that would get it under its phase now (all eligible ones when not phased).'),
  not_eligible: Nullable(NotEligible),
  next_window_at: Nullable(Timestamp('When the release\'s maintenance windows (its own, else its cohort\'s) next open, when they are closed now; null when open or there are none.')),
});

const ReleaseParams = PrnParams('Resource name of the release.');

const PenaltyEntry = Type.Object({
  release_prn: Prn('The release.'),
  device_prn: Prn('The device.'),
  resting: Type.Boolean({ description: 'The device rests from the release now: the update check does not offer it before rest_until.' }),
  rest_until: Nullable(Timestamp('When its last rest ends (or ended); null when it never rested since it was last released.')),
  rests: Type.Integer({ minimum: 0, description: 'Times it was boxed for this release since an operator last released it.' }),
  failures: Type.Integer({ minimum: 0, description: 'Failures of the release counted since it last left the box.' }),
});
const PenaltyList = Type.Object({ penalty_box: Type.Array(PenaltyEntry) }, { description: 'The penalty box entries.' });
const tags = ['releases'];

export const rolloutRoutes: ContextRoutes = (app, platform) => {
  const { db } = platform;
  app.get('/releases/:prn/rollout', {
    config: { role: 'read' },
    schema: {
      tags,
      summary: 'Rollout progress of a release',
      description:
        "Counts from each device's latest report for the release (kept by counters: the cost does not grow with the cohort), the devices on it, " +
        'the halt state, and the fleet-wide "why not": the devices of the cohort the update check would not give it, by reason, as of eligibility_evaluated_at.',
      params: ReleaseParams,
      response: { 200: single('rollout', Rollout), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ rollout: await rolloutProgress(db, actorOf(request), request.params.prn) }),
  });

  app.post('/releases/dry_run', {
    config: { role: 'write', audit: false, auditExemption: 'writes nothing: the create it tries is rolled back' },
    schema: {
      tags,
      summary: 'Dry run of a release',
      description:
        'Takes the body of POST /releases and writes nothing: whether it would be accepted (the refusals POST /releases would answer, as `errors`), ' +
        "where it would go, and what it would do to the cohort now, through the update check's own resolution. A body of the wrong shape is a 422 as on POST /releases.",
      body: DryRunBody,
      response: { 200: single('dry_run', DryRun), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const body = request.body;
      const input = { ...releaseFields(body), bundle_prn: body.bundle_prn, cohort_prn: body.cohort_prn, name: body.name, required: body.required, schedule_date: body.schedule_date };
      return { dry_run: await dryRun(db, actorOf(request), input, platform.now?.() ?? new Date()) };
    },
  });

  const controls: { action: ReleaseControl; summary: string; description: string }[] = [
    {
      action: 'pause',
      summary: 'Pause a release',
      description:
        'Stops new offers: the update check no longer gives the release to a device that does not already hold a slot of its phase; devices installing it finish. ' +
        'Records `release.paused`. Pausing a paused release changes nothing. 409 `release_cancelled` for a cancelled release.',
    },
    {
      action: 'resume',
      summary: 'Resume a release',
      description:
        'Clears a pause and a health-gate halt (`paused_at`, `halted_at`; a halted release is enabled again). Records `release.resumed`. ' +
        'A release neither paused nor halted is left as it is. 409 `release_cancelled` for a cancelled release.',
    },
    {
      action: 'cancel',
      summary: 'Cancel a release',
      description:
        'Final: no device is offered the release again, so devices that have not started it stay where they are (their next update check answers no update, ' +
        'or an older usable release of the chain); devices installing it finish and report as usual. Records `release.cancelled`. Cancelling again changes nothing.',
    },
  ];
  for (const control of controls) {
    app.post(`/releases/:prn/${control.action}`, {
      config: { role: 'write' },
      schema: { tags, summary: control.summary, description: control.description, params: ReleaseParams, response: { 200: single('release', Release), ...STANDARD_ERRORS } },
      handler: async (request) => ({ release: releaseToWire(await controlRelease(db, actorOf(request), request.params.prn, control.action)) }),
    });
  }

  app.get('/releases/:prn/penalty_box', {
    config: { role: 'read' },
    schema: {
      tags,
      summary: 'Penalty box of a release',
      description: 'The devices whose failures of the release are counted, resting ones first (at most 10,000). See `penalty_box` on the release for the line.',
      params: ReleaseParams,
      response: { 200: PenaltyList, ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ penalty_box: await releasePenalties(db, actorOf(request), request.params.prn) }),
  });

  app.delete('/releases/:prn/penalty_box/:device_prn', {
    config: { role: 'write' },
    schema: {
      tags,
      summary: 'Release a device from the penalty box',
      description: 'Forgets the failures of the release counted for the device and ends its rest: its next update check may offer the release again. 404 when the device has no entry.',
      params: Type.Object({ prn: Prn('Resource name of the release.'), device_prn: Prn('Resource name of the device.') }),
      response: { 204: NoContent('Released.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      await releaseFromPenaltyBox(db, actorOf(request), request.params.prn, request.params.device_prn);
      return reply.code(204).send();
    },
  });

  app.get('/devices/:prn/penalty_box', {
    config: { role: 'read' },
    schema: {
      tags: ['devices'],
      summary: 'Penalty box of a device',
      description: 'The releases whose failures are counted for the device, and whether it rests from them now.',
      params: PrnParams('Resource name of the device.'),
      response: { 200: PenaltyList, ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ penalty_box: await devicePenalties(db, actorOf(request), request.params.prn) }),
  });

  app.post('/releases/:prn/revert', {
    config: { role: 'write' },
    schema: {
      tags,
      summary: 'Revert a release',
      description:
        'Disables the release (if it is not already) and appends at the end of its chain a required, unphased release carrying the bundle of the release before it. ' +
        '409 `nothing_to_revert_to` for the first release of its chain.',
      params: ReleaseParams,
      body: Type.Object({
        name: Name('Name of the new release.'),
        version: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128, description: 'Version the new release declares.' }))),
      }),
      response: { 201: single('release', Release), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      const release = await revertRelease(db, actorOf(request), request.params.prn, request.body);
      return reply.code(201).send({ release });
    },
  });
};
