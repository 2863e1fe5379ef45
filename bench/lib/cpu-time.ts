/**
 * CPU time of processes, read from /proc: on a shared machine wall-clock rates move with the
 * neighbours' load, while CPU milliseconds per handshake stay comparable between runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import pg from 'pg';

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
export async function postgresBackendPids(databaseUrl: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    return rows.map((row) => Number(row.pid));
  } finally {
    await client.end();
  }
}

export const sumCpuMs = (pids: number[]) => pids.reduce((total, pid) => total + processCpuMs(pid), 0);

export const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');
