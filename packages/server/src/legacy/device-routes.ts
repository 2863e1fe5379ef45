/** The legacy device API call `GET /device/update` (mutual TLS; the caller is `deviceOf(request)`). */
import { Type } from 'typebox';
import { deviceOf } from '../http/device-request';
import type { ContextRoutes } from '../http/app-types';
import { Nullable, STANDARD_ERRORS } from '../http/schemas';
import { legacyUpdate } from './device-update';

const FirmwareMeta = Type.Object({
  architecture: Nullable(Type.String()),
  author: Nullable(Type.String()),
  description: Nullable(Type.String()),
  fwup_version: Nullable(Type.String()),
  misc: Nullable(Type.String()),
  platform: Nullable(Type.String()),
  product: Nullable(Type.String()),
  uuid: Type.String(),
  vcs_identifier: Nullable(Type.String()),
  version: Type.String(),
});

export const legacyDeviceRoutes: ContextRoutes = (app, platform) => {
  app.get('/device/update', {
    schema: {
      tags: ['legacy device update'],
      summary: 'Ask for a firmware update (legacy fwup devices)',
      description:
        'Requires `x-canopy-uuid` (the uuid of the firmware the device runs; 400 without it). `x-canopy-version` gives its version; when absent, the version of the firmware ' +
        'with that uuid is used. The other x-canopy-* headers may be sent and are recorded by device.connected; a partial set is answered, not refused. ' +
        '`preflight=true` answers without a download URL and counts no attempt; otherwise an offered update counts one attempt of its deployment.',
      headers: Type.Object({
        'x-canopy-uuid': Type.Optional(Type.String({ description: 'The uuid of the firmware the device runs (required).' })),
        'x-canopy-version': Type.Optional(Type.String({ description: 'The version of the firmware the device runs.' })),
      }),
      querystring: Type.Object({ preflight: Type.Optional(Type.Boolean({ default: false, description: 'Answer without a download URL and count no attempt.' })) }),
      response: {
        200: Type.Object(
          {
            data: Type.Object({
              update_available: Type.Boolean(),
              firmware_url: Nullable(Type.String({ description: 'Download URL valid 24 hours; null with preflight or without an update.' })),
              firmware_meta: Nullable(FirmwareMeta),
              deployment_id: Type.Null({ description: 'Always null.' }),
            }),
          },
          { description: 'Whether an update is available, and where to get it.' },
        ),
        ...STANDARD_ERRORS,
      },
    },
    handler: async (request) => {
      const device = deviceOf(request);
      const headers = { uuid: request.headers['x-canopy-uuid'] as string | undefined, version: request.headers['x-canopy-version'] as string | undefined };
      return { data: await legacyUpdate(platform, device.row, headers, request.query.preflight ?? false) };
    },
  });
};
