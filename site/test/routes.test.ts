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

describe('API reference pages', () => {
  const popout = () => fs.readFileSync(path.join(buildDir, 'canopy-core/tools/admin-api/popout.html'), 'utf8');

  it('group operations by resource, colour methods and link shared schemas', () => {
    const html = popout();
    expect(html).toMatch(/id="?tag-artifacts[" >]/);
    expect(html).toContain('api-method--delete');
    expect(html).toMatch(/id="?schema-Error[" >]/);
    // The error body is shown once and linked, not spelled out in each of the ~97 operations.
    expect(html.split('snake_case error code').length - 1).toBe(1);
  });

  it('show recorded examples and render the descriptions\' markdown', () => {
    const html = popout();
    expect(html.replace(/<!-- -->/g, '')).toContain('Example: <code>POST /artifacts</code>');
    expect(html).not.toMatch(/>[^<]*`[a-z_]+`[^<]*</);
  });

  it('leak no internal design notes, and the docs page is an index, not the whole reference', () => {
    for (const file of ['canopy-core/tools/admin-api.html', 'canopy-core/tools/admin-api/popout.html', 'canopy-core/tools/device-api/popout.html']) {
      expect(fs.readFileSync(path.join(buildDir, file), 'utf8')).not.toContain('api-contract');
    }
    expect(fs.statSync(path.join(buildDir, 'canopy-core/tools/admin-api.html')).size).toBeLessThan(200_000);
  });
});
