/**
 * The job that closes a tunnel at its expires_at. It lives in the jobs table, so it survives a
 * restart and runs on whichever server process claims it first.
 */
import type { JobHandler } from '../workers/runner';
import { byId, closeTunnel, lockTunnel, scheduleExpiry, TUNNEL_EXPIRY_JOB } from './lifecycle';

export const tunnelExpiryJob: JobHandler = {
  kind: TUNNEL_EXPIRY_JOB,
  async run({ platform, job }) {
    const { tunnel_id: id, organization_id: organizationId } = job.payload as { tunnel_id: string; organization_id: string };
    await platform.db.transaction(async (tx) => {
      const locked = await lockTunnel(tx, byId(id, organizationId));
      if (!locked || locked.row.state === 'closed') return;
      // Extended after this run was claimed: make sure the job stands at the new time.
      if (!locked.expired) return scheduleExpiry(tx, locked.row);
      await closeTunnel(tx, locked.row, { subtype: 'expired', reason: 'expired', actorPrn: null });
    });
  },
  // A failure here is the database; try again soon, the tunnel is overdue.
  retryDelay: (attempt) => Math.min(60, 2 ** attempt),
};
