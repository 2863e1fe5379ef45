/** The device side of the update check: `GET /update` on the device API (spec 2, section 7). */
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { deviceOf } from '../http/device-request';
import { ExpandQuery, parseExpand } from '../http/expand';
import { DEVICE_ERRORS } from '../http/schemas';
import { DeviceUpdateAnswer } from './api-schemas';
import { checkForUpdate, UPDATE_EXPANSIONS } from './service';

const PRN_PATTERN = '^prn:1:[0-9a-f-]{36}:[a-z_]+:[0-9a-f-]{36}$';

const PositionHeaders = Type.Object({
  'canopy-release-prn': Type.Optional(Type.String({ pattern: PRN_PATTERN, maxLength: 200, description: 'The release the device runs.' })),
  'canopy-bundle-prn': Type.Optional(Type.String({ pattern: PRN_PATTERN, maxLength: 200, description: 'The bundle the device runs.' })),
  'canopy-release-version': Type.Optional(
    Type.String({ minLength: 1, maxLength: 128, pattern: '^[0-9A-Za-z.+-]+$', description: 'The version the device runs (Elixir-style semantic version).' }),
  ),
});

export const updateDeviceRoutes: ContextRoutes = (app, platform) => {
  app.get('/update', {
    // The check's statement also records a new connection's device.connected (one commit for
    // both), and proves a later request's admission (connection-auth.ts).
    config: { recordsConnection: true, confirmsAdmission: true },
    // Serialised as before the schema named each expansion: exactly what answers.ts builds, no field dropped or coerced (same cost, bench/compare-bundles.ts).
    serializerCompiler: () => JSON.stringify,
    schema: {
      tags: ['device'],
      summary: 'Check for an update',
      description:
        'Resolves which bundle the device should run, by the rules of the releases reference. Position headers: `canopy-release-prn`, `canopy-bundle-prn`, `canopy-release-version`. ' +
        'Answers `{status}` (`update`, `no_update`, `device_quarantine`); `expand` adds bundle_override, bundle, cohort, manifest, release, source_type.',
      headers: PositionHeaders,
      querystring: Type.Object({ expand: ExpandQuery(UPDATE_EXPANSIONS) }),
      response: { 200: DeviceUpdateAnswer, ...DEVICE_ERRORS },
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
      return check.deviceAnswer(expand);
    },
  });
};
