/** The admin side of the update check: `POST /devices/{prn}/update` and its explanation. */
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { notFound, validationError } from '../http/errors';
import { resourceIdFromPrn } from '../core/prn';
import { Nullable, Prn, PrnParams, STANDARD_ERRORS } from '../http/schemas';
import { readDeviceWithCheckState } from './check-state';
import { getDevice } from './neighbours';
import { AdminUpdateAnswer, SourceType, UpdateStatus } from './api-schemas';
import { checkForUpdate, explainUpdate } from './service';

const Reported = {
  release_prn: Type.Optional(Nullable(Prn('The release the device reports running.'))),
  bundle_prn: Type.Optional(Nullable(Prn('The bundle the device reports running.'))),
  release_version: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128, description: 'The version the device reports running.' }))),
};

const ExplainAnswer = Type.Object({
  status: UpdateStatus,
  source_type: SourceType,
  release_prn: Nullable(Type.String()),
  bundle_prn: Nullable(Type.String()),
  bundle_override_prn: Nullable(Type.String()),
  would_claim: Type.Boolean({ description: 'A check now would take a slot of a phased release.' }),
  would_take_slot: Type.Boolean({ description: 'A check now would take a place under the release\'s concurrency cap (max_concurrent).' }),
  retry_after: Nullable(Type.Integer({ description: 'With status `retry_later` (the concurrency cap is full): the seconds the device is told to wait; else null.' })),
  rollout_path: Nullable(Type.String({ description: 'The fleet-wide "why not": GET this path for the rollout of the cohort\'s latest release, with the cohort\'s devices not eligible by reason. Null without a cohort or releases.' })),
  steps: Type.Array(
    Type.Object({
      step: Type.String({ examples: ['walk_backward'] }),
      outcome: Type.Union([Type.Literal('taken'), Type.Literal('skipped'), Type.Literal('considered')]),
      reason: Type.String({ examples: ['phase_full'] }),
      subject_prn: Nullable(Type.String()),
      detail: Type.Record(Type.String(), Type.Unknown()),
    }),
  ),
}, { description: 'The resolution, step by step.' });

const tags = ['devices'];
const Params = PrnParams('Resource name of the device.');

function reportedOf(body: { release_prn?: string | null; bundle_prn?: string | null; release_version?: string | null }) {
  return { releasePrn: body.release_prn ?? null, bundlePrn: body.bundle_prn ?? null, releaseVersion: body.release_version ?? null };
}

export const updateRoutes: ContextRoutes = (app, platform) => {
  app.post('/devices/:prn/update', {
    config: { role: 'write', keyKinds: ['current'] },
    schema: {
      tags,
      summary: 'Check a device for an update',
      description:
        'Resolves what the device should run from what it reports, by the rules of the releases reference: at least one of release_prn, bundle_prn, release_version. ' +
        '`write: true` also stores that reported state on the device. Current API keys only: a legacy key is 403 `legacy_api_key_not_allowed`.',
      params: Params,
      body: Type.Object({ ...Reported, write: Type.Optional(Type.Boolean({ default: false })) }),
      response: { 200: AdminUpdateAnswer, ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const actor = actorOf(request);
      const body = request.body;
      if (!body.release_prn && !body.bundle_prn && !body.release_version) {
        throw validationError(['release_prn', 'bundle_prn', 'release_version'].map((field) => ({ field, reason: 'one_of_required' })));
      }
      // The device and its check state in one round trip; a prn of another type or organization finds nothing.
      const deviceId = resourceIdFromPrn(request.params.prn, 'device', actor.organizationId);
      const found = deviceId === null ? null : await readDeviceWithCheckState(platform.db, actor.organizationId, deviceId);
      if (!found) throw notFound('device', request.params.prn);
      const check = await checkForUpdate(platform, found.device, reportedOf(body), { write: body.write ?? false, actorPrn: actor.prn, state: found.state });
      return check.adminAnswer();
    },
  });

  app.get('/devices/:prn/update/explain', {
    config: { role: 'read' },
    schema: {
      tags,
      summary: 'Explain a device update check',
      description:
        'Step by step, why the device gets what it gets: each override and release considered and why it was taken or skipped. ' +
        'Read-only: no claim is taken and no event recorded. The query takes the same reported state as the check (all optional; none means the state stored on the device).',
      params: Params,
      querystring: Type.Object(Reported),
      response: { 200: ExplainAnswer, ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const actor = actorOf(request);
      const device = await getDevice(platform.db, actor, request.params.prn);
      return explainUpdate(platform, device, reportedOf(request.query));
    },
  });
};
