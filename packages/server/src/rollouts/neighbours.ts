/** What rollout routes show of neighbouring contexts: a release's wire form, the report statuses. */
export { releaseToWire } from '../releases/wire';
export { STORED_REPORT_STATUSES, type StoredReportStatus } from '../update-reports/schema';
