/**
 * `GET /tuf/{file}` on the device API: the organization's TUF metadata, over the device's mutual
 * TLS. A request for `{n}.root.json` also records that the device trusts root n-1 (posture.ts).
 */
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { deviceOf } from '../http/device-request';
import { notFound } from '../http/errors';
import { DEVICE_ERRORS } from '../http/schemas';
import { recordDeviceRoot } from './posture';
import { servedMetadata } from './service';

export const tufDeviceRoutes: ContextRoutes = (app, { db }) => {
  app.get('/tuf/:file', {
    schema: {
      tags: ['device'],
      summary: 'Get TUF metadata',
      description: '`{n}.root.json`, `timestamp.json`, `snapshot.json`, `targets.json` or a delegated role\'s `{role}.json`; 404 when there is none.',
      params: Type.Object({ file: Type.String({ minLength: 1, maxLength: 140, description: 'The metadata file, e.g. `2.root.json`.' }) }),
      response: { 200: Type.Record(Type.String(), Type.Unknown(), { description: 'The metadata.' }), ...DEVICE_ERRORS },
    },
    handler: async (request) => {
      const device = deviceOf(request);
      const rootFile = /^([1-9][0-9]{0,8})\.root\.json$/.exec(request.params.file);
      if (rootFile) await recordDeviceRoot(db, device, Number(rootFile[1]) - 1);
      const body = await servedMetadata(db, device.organizationId, request.params.file);
      if (!body) throw notFound('tuf_metadata');
      return body;
    },
  });
};
