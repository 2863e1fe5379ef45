/** What rollout routes show of neighbouring contexts: a release's wire form, the report statuses. */
export { releaseToWire } from '../releases/wire';
export { UPDATE_REPORT_STATUSES, type UpdateReportStatus } from '../update-reports/schema';
