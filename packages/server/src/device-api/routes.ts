/** The device API's own route: `GET /device/me` (spec 2, section 7). `GET /update` is updates/device-routes.ts. */
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { deviceOf } from '../http/device-request';
import { ExpandQuery, parseExpand } from '../http/expand';
import { DEVICE_ERRORS, Nullable } from '../http/schemas';
import { ManifestEntry } from '../binaries/manifest-schemas';
import { Cohort } from '../cohorts/api-schemas';
import { Device } from '../devices/api-schemas';
import { describeDevice, ME_EXPAND } from './service';

const DeviceMe = Type.Object(
  {
    data: Type.Object(
      {
        ...Device.properties,
        cohort: Type.Optional(Nullable(Cohort, { description: 'With `expand=cohort`: the device\'s cohort, or null.' })),
        manifest: Type.Optional(Nullable(Type.Array(ManifestEntry), { description: 'With `expand=manifest`: entries of the bundle the device reports running; null when unknown.' })),
      },
      { additionalProperties: false },
    ),
  },
  { description: 'The calling device.' },
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
    handler: async (request) => ({ data: await describeDevice(platform, deviceOf(request), parseExpand(request.query.expand, ME_EXPAND)) }),
  });
};
