import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCliPages } from '../scripts/lib/cliPages';
import { loadCliData, loadCliTree, treeFromData } from '../scripts/lib/cliTree';
import { ROUTE_ACCESS_SOURCE, routeAccessMdx, type RouteAccessRow } from '../scripts/lib/routeAccess';
import { repoDir, siteDir } from './helpers/paths';

function pageList(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name.endsWith('.md')) out.push(path.relative(dir, path.join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

describe('CLI page generator', () => {
  it('produces the same pages from the CLI-exported tree as from the site data file', () => {
    const data = loadCliData(siteDir);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-cli-'));
    // A repository whose CLI package exported its tree.
    fs.mkdirSync(path.join(tmp, 'repo/packages/cli'), { recursive: true });
    fs.writeFileSync(path.join(tmp, 'repo/packages/cli/command-tree.json'), JSON.stringify(treeFromData(data)));
    const exported = loadCliTree(path.join(tmp, 'repo'), data);
    const fallback = loadCliTree(path.join(tmp, 'elsewhere'), data);
    expect(exported.source).toBe('packages/cli/command-tree.json');
    expect(fallback.source).toBe('site/data/cli-resources.json');
    writeCliPages(path.join(tmp, 'a'), exported.tree, data);
    writeCliPages(path.join(tmp, 'b'), fallback.tree, data);
    expect(pageList(path.join(tmp, 'a'))).toEqual(pageList(path.join(tmp, 'b')));
    expect(pageList(path.join(tmp, 'a')).filter((p) => !p.endsWith('_category_.json'))).toHaveLength(82);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('documents every option of a command on its page', () => {
    const data = loadCliData(siteDir);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-cli-'));
    const tree = treeFromData(data);
    writeCliPages(tmp, tree, data);
    for (const group of tree.commands) {
      for (const cmd of group.commands.filter((c) => c.commands.length === 0)) {
        const page = fs.readFileSync(path.join(tmp, group.name, `${cmd.name}.md`), 'utf8');
        for (const option of cmd.options) expect(page).toContain(option.flags.replace(/\|/g, '\\|'));
      }
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('takes usage from the CLI and examples from the recorded session', () => {
    const data = loadCliData(siteDir);
    const { tree } = loadCliTree(repoDir, data);
    const examples = JSON.parse(fs.readFileSync(path.join(siteDir, 'data/cli-examples.json'), 'utf8'));
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-cli-'));
    writeCliPages(tmp, tree, data, examples);
    for (const action of ['get', 'update', 'delete']) {
      const page = fs.readFileSync(path.join(tmp, 'artifacts', `${action}.md`), 'utf8');
      expect(page).toContain(`canopy artifacts ${action} [options] <prn>`);
      expect(page).toContain('| `<prn>` | yes |');
      expect(page).toMatch(new RegExp(`canopy artifacts ${action} "\\$[A-Z_]+_PRN"`));
    }
    const create = fs.readFileSync(path.join(tmp, 'products', 'create.md'), 'utf8');
    expect(create).toContain('| `--name <value>` | **yes** |');
    expect(create).toContain('canopy products create --name gateway');
    expect(create).toContain(examples['products create'].output);
    const artifactCreate = fs.readFileSync(path.join(tmp, 'artifacts', 'create.md'), 'utf8');
    expect(artifactCreate).toContain('Create an artifact.');
    fs.rmSync(tmp, { recursive: true, force: true });
  });
});

describe('security model matrix generator', () => {
  const rows = () => (JSON.parse(fs.readFileSync(path.join(repoDir, ROUTE_ACCESS_SOURCE), 'utf8')) as { routes: RouteAccessRow[] }).routes;

  it('renders one row per admin route of the server-exported route-access.json', () => {
    const mdx = routeAccessMdx(rows());
    for (const row of rows()) expect(mdx).toContain(`| \`${row.method} ${row.path}\` |`);
    expect(mdx.split('\n').filter((line) => line.startsWith('| `'))).toHaveLength(rows().length);
  });

  it('shows a legacy route with the role of the current route it stands for', () => {
    const line = routeAccessMdx(rows()).split('\n').find((l) => l.startsWith('| `DELETE /orgs/{org_name}/ca_certificates/{serial}` |'));
    expect(line).toContain('| `admin` | — | — | ✓ | ✓ | `DELETE /ca_certificates/{prn}` |');
    const update = routeAccessMdx(rows()).split('\n').find((l) => l.startsWith('| `POST /devices/{prn}/update` |'));
    expect(update).toMatch(/\| refused \|$/);
  });
});
