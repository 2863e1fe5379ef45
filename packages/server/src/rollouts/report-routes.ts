/** `GET /releases/{prn}/reports`: the devices behind a release's rollout counts, with their reasons. */
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { parameterError } from '../http/errors';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, Nullable, Prn, PrnParams, STANDARD_ERRORS, Timestamp } from '../http/schemas';
import { STORED_REPORT_STATUSES, type StoredReportStatus } from './neighbours';
import { listReleaseReports } from './release-reports';

// One list of stored statuses (update-reports/schema.ts: `confirmed` for a passed soak), so a new one is answered here too.
const Status = Type.Unsafe<StoredReportStatus>({ type: 'string', enum: [...STORED_REPORT_STATUSES] });

const ReleaseReport = Type.Object({
  prn: Prn("The latest report's prn (its device.update_reported event)."),
  device_prn: Prn('The device.'),
  device_identifier: Type.String({ description: 'The device identifier.' }),
  bundle_prn: Prn('The bundle the device reported about.'),
  status: Status,
  progress: Nullable(Type.Number({ description: 'Progress 0..1 as reported.' })),
  reason: Nullable(Type.String({ description: 'Why, as the device reported it (required for failed and rolled_back).' })),
  updated_at: Timestamp('When the device sent this report.'),
  soak_ends_at: Nullable(Timestamp("While the device soaks (installed, on a release with soak_seconds): when its soak ends; else null.")),
  healthy_at: Nullable(Timestamp('The latest `healthy` report during the soak; null when none.')),
});

/** `failed,rolled_back` -> the statuses; 400 naming `status` for anything else. */
function statusesOf(text: string | undefined): StoredReportStatus[] | undefined {
  if (text === undefined || text === '') return undefined;
  const parts = text.split(',').map((s) => s.trim());
  for (const part of parts) if (!(STORED_REPORT_STATUSES as readonly string[]).includes(part)) throw parameterError('status', 'invalid', { allowed: [...STORED_REPORT_STATUSES] });
  return parts as StoredReportStatus[];
}

export const releaseReportRoutes: ContextRoutes = (app, { db }) => {
  app.get('/releases/:prn/reports', {
    config: { role: 'read' },
    schema: {
      tags: ['releases'],
      summary: "Devices' latest reports for a release",
      description:
        "Each device's latest update report for the release (the devices behind the rollout's `reported` counts), most recently changed first; on a release with a soak, `installed` devices are still soaking and `confirmed` ones passed it. " +
        '`status`: a comma-separated list of statuses to keep, e.g. `failed,rolled_back`.',
      params: PrnParams('Resource name of the release.'),
      querystring: Type.Object({
        limit: LIST_QUERY_PROPERTIES.limit,
        page: LIST_QUERY_PROPERTIES.page,
        status: Type.Optional(Type.String({ maxLength: 200, description: `Statuses to keep, comma-separated: ${STORED_REPORT_STATUSES.join(', ')}.`, examples: ['failed,rolled_back'] })),
      }),
      response: { 200: list('reports', ReleaseReport), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listReleaseReports(db, actorOf(request), request.params.prn, { limit: request.query.limit, page: request.query.page, status: statusesOf(request.query.status) });
      return { reports: page.items, next_page: page.nextPage };
    },
  });
};
