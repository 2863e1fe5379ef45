import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listOperations } from '../src/api/openapi';
import { buildDir, builtRoutes, expectedRoutes, repoDir } from './helpers/paths';

describe('built routes', () => {
  it('equal the spec route list in routes.json', () => {
    expect(builtRoutes()).toEqual([...expectedRoutes()].sort());
  });

  it('have no trailing slashes and no duplicates', () => {
    const routes = expectedRoutes();
    expect(new Set(routes).size).toBe(routes.length);
    expect(routes.filter((r) => r !== '/' && r.endsWith('/'))).toEqual([]);
  });

  it('leave the draft page out of the production build', () => {
    expect(fs.existsSync(path.join(buildDir, 'avocado-os/guides/delta-updates.html'))).toBe(false);
  });

  it('render every admin operation into the popout page', () => {
    const doc = JSON.parse(fs.readFileSync(path.join(repoDir, 'packages/server/openapi/admin-api.json'), 'utf8'));
    const html = fs.readFileSync(path.join(buildDir, 'canopy-core/tools/admin-api/popout.html'), 'utf8');
    for (const op of listOperations(doc)) {
      expect(html).toContain(`data-operation="${op.method.toUpperCase()} ${op.path}"`);
    }
  });
});
