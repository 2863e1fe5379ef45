/** `POST /update/reports`: the daemon's reports about an install (device API, mutual TLS). */
import { Type } from 'typebox';
import { deviceOf } from '../http/device-request';
import type { ContextRoutes } from '../http/app-types';
import { Nullable, Prn, STANDARD_ERRORS } from '../http/schemas';
import { UPDATE_REPORT_STATUSES, type UpdateReportStatus } from './schema';
import { recordUpdateReport } from './service';

const Status = Type.Unsafe<UpdateReportStatus>({ type: 'string', enum: [...UPDATE_REPORT_STATUSES], description: 'Where the install is.' });

const UpdateReport = Type.Object(
  {
    prn: Type.String({ description: 'The report; the same prn as its `device.update_reported` event.' }),
    device_prn: Type.String(),
    status: Status,
    release_prn: Nullable(Type.String()),
    bundle_prn: Type.String(),
    progress: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    reason: Nullable(Type.String()),
    inserted_at: Type.String({ format: 'date-time' }),
    soak: Type.Union([Type.Literal('soaking'), Type.Literal('passed'), Type.Literal('failed'), Type.Null()], {
      description:
        "What the report did to the device's soak of a release with `soak_seconds`: `soaking` (healthy, the soak goes on), `passed` (the device is confirmed), `failed` (a failure or rollback within the soak); null: nothing.",
    }),
  },
  { description: 'One report.' },
);

export const updateReportDeviceRoutes: ContextRoutes = (app, platform) => {
  app.post('/update/reports', {
    // On a kept-alive connection the report's own statement proves the request's admission
    // (update-reports/report-writes.ts), as the update check's does: one statement per report.
    config: { confirmsAdmission: true },
    schema: {
      tags: ['device'],
      summary: 'Report on an install',
      description:
        'What the daemon is doing with the bundle it was offered: `downloading` (with `progress`, at most one such report per 5 seconds per install), ' +
        '`installing`, `rebooting`, `installed`, `failed` or `rolled_back`, or `deferred` (offered, but the device\'s readiness command said not now; it asks again at its next poll). `failed`, `rolled_back` and `deferred` need a `reason`. ' +
        '`healthy`: on a release with `soak_seconds`, after `installed`, the device\'s health check passed again; the first one a soak after `installed` confirms the device (answered `soak: passed`), and the daemon stops reporting then. ' +
        'Records a `device.update_reported` event and keeps the latest report of the device for the release. ' +
        'A release or bundle that is not the organization\'s is a 422 naming the field.',
      body: Type.Object({
        status: Status,
        release_prn: Nullable(Prn('The release being installed; null for a bundle outside any release (a bundle override).')),
        bundle_prn: Prn('The bundle being installed.'),
        progress: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'Fraction done, 0 to 1.' }))),
        reason: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 256, description: 'Why; required for failed, rolled_back and deferred.' }))),
      }),
      response: { 201: Type.Object({ data: UpdateReport }, { description: 'The recorded report.' }), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      const report = await recordUpdateReport(platform.db, deviceOf(request), request.body);
      return reply.code(201).send({ data: report });
    },
  });
};
