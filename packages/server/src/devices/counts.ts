/**
 * GET /devices/counts: how many of the organization's devices, among those the search selects
 * (the search language of GET /devices), are in each state. One statement: counts with FILTER
 * over the organization's rows, found through devices_org_inserted (organization first).
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Actor } from '../http/actor';
import type { Executor } from '../db/connection';
import { devices } from './schema';
import { deviceSearchCondition } from './search';

import { ONLINE_WINDOW_SECONDS } from './online';

export { ONLINE_WINDOW_SECONDS };

export interface DeviceCounts {
  total: number;
  quarantined: number;
  archived: number;
  online: number;
  never_connected: number;
  reported_release: number;
}

export async function countDevices(db: Executor, actor: Actor, search: unknown): Promise<DeviceCounts> {
  const where = and(eq(devices.organizationId, actor.organizationId), deviceSearchCondition(search, actor.organizationId));
  const [row] = await db
    .select({
      total: sql<number>`count(*)::int`,
      quarantined: sql<number>`(count(*) filter (where ${devices.quarantined}))::int`,
      archived: sql<number>`(count(*) filter (where ${devices.archived}))::int`,
      online: sql<number>`(count(*) filter (where ${devices.lastConnectedAt} > now() - make_interval(secs => ${ONLINE_WINDOW_SECONDS})))::int`,
      never_connected: sql<number>`(count(*) filter (where ${devices.lastConnectedAt} is null))::int`,
      reported_release: sql<number>`(count(*) filter (where ${devices.reportedReleasePrn} is not null))::int`,
    })
    .from(devices)
    .where(where);
  return { total: row.total, quarantined: row.quarantined, archived: row.archived, online: row.online, never_connected: row.never_connected, reported_release: row.reported_release };
}
