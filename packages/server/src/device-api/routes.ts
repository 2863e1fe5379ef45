/** The device API's own routes: `GET /device/me` and `GET /update` (spec 2, section 7). */
import { Type } from 'typebox';
import { cohortToWire, getCohort } from '../cohorts/service';
import { deviceOf } from '../device-routes';
import { deviceToWire } from '../devices/service';
import type { ContextRoutes } from '../http/app-types';
import { ExpandQuery, parseExpand } from '../http/expand';
import { ErrorBody, Nullable } from '../http/schemas';
import { checkForUpdate, UPDATE_EXPANSIONS } from '../releases/update-service';
import { currentManifest } from './current-manifest';

const PRN_PATTERN = '^prn:1:[0-9a-f-]{36}:[a-z_]+:[0-9a-f-]{36}$';

const PositionHeaders = Type.Object({
  'canopy-release-prn': Type.Optional(Type.String({ pattern: PRN_PATTERN, maxLength: 200, description: 'The release the device runs.' })),
  'canopy-bundle-prn': Type.Optional(Type.String({ pattern: PRN_PATTERN, maxLength: 200, description: 'The bundle the device runs.' })),
  'canopy-release-version': Type.Optional(
    Type.String({ minLength: 1, maxLength: 128, pattern: '^[0-9A-Za-z.+-]+$', description: 'The version the device runs (Elixir-style semantic version).' }),
  ),
});

const DEVICE_ERRORS = {
  400: { ...ErrorBody, description: 'A malformed header or parameter.' },
  401: { ...ErrorBody, description: 'No client certificate, or one that does not authenticate a device; `context.reason` says why.' },
};

const ME_EXPAND = ['cohort', 'manifest'] as const;

const DeviceMe = Type.Object(
  {
    data: Type.Object(
      {
        prn: Type.String(),
        identifier: Type.String(),
        quarantined: Type.Boolean(),
        cohort: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
        manifest: Type.Optional(Nullable(Type.Array(Type.Unknown(), { description: 'Entries of the bundle the device reports running; null when unknown.' }))),
      },
      { additionalProperties: true },
    ),
  },
  { description: 'The calling device.' },
);

const UpdateAnswer = Type.Object(
  { status: Type.Union([Type.Literal('update'), Type.Literal('no_update'), Type.Literal('device_quarantine')]) },
  { additionalProperties: true, description: '`status`, plus each expanded field.' },
);

export const deviceApiRoutes: ContextRoutes = (app, platform) => {
  app.get('/device/me', {
    schema: {
      tags: ['device'],
      summary: 'The calling device',
      description: 'The device the client certificate authenticates. `expand`: cohort, manifest (of what the device runs now).',
      querystring: Type.Object({ expand: ExpandQuery(ME_EXPAND) }),
      response: { 200: DeviceMe, ...DEVICE_ERRORS },
    },
    handler: async (request) => {
      const device = deviceOf(request);
      const expand = parseExpand(request.query.expand, ME_EXPAND);
      const wire = deviceToWire(device.row);
      const data: typeof wire & { cohort?: object | null; manifest?: unknown[] | null } = wire;
      if (expand.has('cohort')) {
        // The device reads its own cohort as a read-only caller of its organization.
        const actor = { organizationId: device.organizationId, role: 'read' as const, keyKind: 'current' as const, keyId: device.row.id, userId: null, prn: device.prn };
        data.cohort = wire.cohort_prn ? cohortToWire(await getCohort(platform.db, actor, wire.cohort_prn)) : null;
      }
      if (expand.has('manifest')) data.manifest = await currentManifest(platform, device.row);
      return { data };
    },
  });

  app.get('/update', {
    // The check's statement also records a new connection's device.connected (one commit for
    // both), and proves a later request's admission (connection-auth.ts).
    config: { recordsConnection: true, confirmsAdmission: true },
    schema: {
      tags: ['device'],
      summary: 'Check for an update',
      description:
        'Resolves which bundle the device should run (api-contract.md section 5). Position headers: `canopy-release-prn`, `canopy-bundle-prn`, `canopy-release-version`. ' +
        'Answers `{status}` (`update`, `no_update`, `device_quarantine`); `expand` adds bundle_override, bundle, cohort, manifest, release, source_type.',
      headers: PositionHeaders,
      querystring: Type.Object({ expand: ExpandQuery(UPDATE_EXPANSIONS) }),
      response: { 200: UpdateAnswer, ...DEVICE_ERRORS },
    },
    handler: async (request) => {
      const device = deviceOf(request);
      const expand = parseExpand(request.query.expand, UPDATE_EXPANSIONS);
      const reported = {
        releasePrn: request.headers['canopy-release-prn'],
        bundlePrn: request.headers['canopy-bundle-prn'],
        releaseVersion: request.headers['canopy-release-version'],
      };
      // The device API records what the device reports on every check (`write`).
      const check = await checkForUpdate(platform, device.row, reported, {
        write: true,
        actorPrn: device.prn,
        connection: device.connection ?? undefined,
        admission: device.admission ?? undefined,
      });
      // The service builds the answer field by field; its `status` is always set.
      return (await check.deviceAnswer(expand)) as Type.Static<typeof UpdateAnswer>;
    },
  });
};
