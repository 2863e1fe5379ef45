/** The device API's own route: `GET /device/me` (spec 2, section 7). `GET /update` is updates/device-routes.ts. */
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { deviceOf } from '../http/device-request';
import { ExpandQuery, parseExpand } from '../http/expand';
import { DEVICE_ERRORS } from '../http/schemas';
import { DeviceMe } from './api-schemas';
import { describeDevice, ME_EXPAND } from './service';

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
