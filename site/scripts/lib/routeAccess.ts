import fs from 'node:fs';
import path from 'node:path';
import { cell, GENERATED_NOTE, writeFile } from './write';

// The shape of packages/server/route-access.json, written by `npm run route-access -w @canopy/server`
// from the admin server's route table (a server test fails when the file differs from it).
export interface RouteAccessRow {
  method: string;
  path: string;
  access: 'public' | 'read' | 'write' | 'admin';
  key_kinds: string[];
  same_as: string | null;
  legacy: boolean;
  summary: string | null;
}

export const ROUTE_ACCESS_SOURCE = 'packages/server/route-access.json';
/** A partial (the leading underscore keeps it from being a page of its own) that the security model page imports. */
export const ROUTE_ACCESS_PARTIAL = 'docs/canopy-core/reference/_route-access.mdx';

const RANK = { read: 0, write: 1, admin: 2 } as const;
const YES = '✓';
const NO = '—';

function roleCells(row: RouteAccessRow): string[] {
  if (row.access === 'public') return ['no key', YES, YES, YES, YES];
  const needed = RANK[row.access];
  const byRole = (['read', 'write', 'admin'] as const).map((role) => (RANK[role] >= needed ? YES : NO));
  return [`\`${row.access}\``, ...byRole, row.key_kinds.includes('legacy') ? YES : 'refused'];
}

function table(rows: RouteAccessRow[], withSameAs: boolean): string {
  const head = ['Call', 'What it does', 'Needs', 'read', 'write', 'admin', 'legacy key', ...(withSameAs ? ['Same as'] : [])];
  const lines = rows.map((row) => {
    const cells = [`\`${row.method} ${row.path}\``, cell(row.summary ?? ''), ...roleCells(row), ...(withSameAs ? [row.same_as ? `\`${row.same_as}\`` : ''] : [])];
    return `| ${cells.join(' | ')} |`;
  });
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...lines].join('\n');
}

/** The matrix as MDX: current routes, then legacy routes with the current route each takes its access from. */
export function routeAccessMdx(rows: RouteAccessRow[]): string {
  const current = rows.filter((row) => !row.legacy);
  const legacy = rows.filter((row) => row.legacy);
  return [
    `{/* ${GENERATED_NOTE} Source: ${ROUTE_ACCESS_SOURCE}. */}`,
    '',
    '### Current API',
    '',
    table(current, false),
    '',
    '### Legacy API',
    '',
    table(legacy, true),
    '',
  ].join('\n');
}

export function writeRouteAccess(siteDir: string, repoDir: string): number {
  const rows = (JSON.parse(fs.readFileSync(path.join(repoDir, ROUTE_ACCESS_SOURCE), 'utf8')) as { routes: RouteAccessRow[] }).routes;
  writeFile(path.join(siteDir, ROUTE_ACCESS_PARTIAL), routeAccessMdx(rows));
  return rows.length;
}
