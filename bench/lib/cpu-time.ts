/**
 * CPU time of processes, read from /proc: on a shared machine wall-clock rates move with the
 * neighbours' load, while CPU milliseconds per handshake stay comparable between runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import { withClient } from './postgres';

const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux.

/** utime + stime of one process in ms; 0 once it is gone. */
export function processCpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** This process, all threads: what the load generator itself spends. */
export function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** The PostgreSQL backends serving `databaseUrl` right now (the server's pool), by pid. */
async function postgresBackendPids(databaseUrl: string): Promise<number[]> {
  const { rows } = await withClient(databaseUrl, (client) => client.query('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()'));
  return rows.map((row) => Number(row.pid));
}

/**
 * CPU of the backends serving a database between `start()` and `stop()`. The server's pool opens
 * and closes backends as it goes: one opened meanwhile counts in full, one closed meanwhile is
 * lost (it cannot be read any more), so the figure errs low, never below zero.
 */
export async function databaseCpuClock(databaseUrl: string): Promise<{ stop(): Promise<number> }> {
  const before = new Map((await postgresBackendPids(databaseUrl)).map((pid) => [pid, processCpuMs(pid)]));
  return {
    async stop() {
      const pids = new Set([...before.keys(), ...(await postgresBackendPids(databaseUrl))]);
      let total = 0;
      for (const pid of pids) total += Math.max(0, processCpuMs(pid) - (before.get(pid) ?? 0));
      return total;
    },
  };
}

/**
 * The CPU a server process and (with a database) the PostgreSQL backends serving it spend from
 * now until `stop`, per request served meanwhile (null for what was not measured).
 */
export async function serverCpuClock(serverPid: number | undefined, databaseUrl: string | null): Promise<{ stop(requests: number): Promise<{ serverMs: number | null; databaseMs: number | null }> }> {
  const serverBefore = serverPid ? processCpuMs(serverPid) : 0;
  const database = databaseUrl ? await databaseCpuClock(databaseUrl) : null;
  return {
    async stop(requests) {
      const count = Math.max(1, requests);
      return {
        serverMs: serverPid ? (processCpuMs(serverPid) - serverBefore) / count : null,
        databaseMs: database ? (await database.stop()) / count : null,
      };
    },
  };
}

export const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

/**
 * The share of the machine's CPU time left idle (iowait included) between `start` and `stop`,
 * from /proc/stat: a load that leaves cores idle is limited by waiting, not by work.
 */
export function machineIdleClock(): { stop(): number } {
  const read = () => {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { idle: fields[3] + fields[4], total: fields.reduce((a, b) => a + b, 0) };
  };
  const before = read();
  return {
    stop() {
      const after = read();
      return (after.idle - before.idle) / Math.max(1, after.total - before.total);
    },
  };
}
