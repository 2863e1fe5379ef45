/**
 * Keeps every organization's timestamp fresh: a new one when the latest has used half its
 * lifetime, checked every tenth of it (at most a minute). Devices that stop seeing fresh
 * timestamps (a frozen server) refuse them once expired.
 */
import { sql } from 'drizzle-orm';
import type { Platform } from '../platform';
import type { BackgroundService } from '../workers/background-service';
import { refreshTimestamp } from './service';

export function createTufRefresher(platform: Platform): BackgroundService {
  const lifetime = platform.config.tufTimestampExpirySeconds;
  const everyMs = Math.min(60_000, Math.max(500, (lifetime * 1000) / 10));
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();

  async function due(now: Date): Promise<string[]> {
    const halfway = new Date(now.getTime() + (lifetime * 1000) / 2).toISOString();
    const rows = await platform.db.execute<{ organization_id: string }>(sql`
      SELECT organization_id FROM (
        SELECT DISTINCT ON (organization_id) organization_id, body
        FROM tuf_metadata WHERE role = 'timestamp' ORDER BY organization_id, version DESC
      ) latest WHERE (body->'signed'->>'expires')::timestamptz < ${halfway}::timestamptz`);
    return (Array.isArray(rows) ? rows : (rows as { rows: { organization_id: string }[] }).rows).map((row) => row.organization_id);
  }

  async function tick() {
    try {
      const now = new Date();
      for (const organizationId of await due(now)) await platform.db.transaction((tx) => refreshTimestamp({ ...platform, db: tx as never }, organizationId, now));
    } catch (error) {
      platform.log.warn({ err: (error as Error).message }, 'tuf timestamp refresh failed');
    }
  }

  return {
    start() {
      timer = setInterval(() => {
        running = running.then(tick);
      }, everyMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
