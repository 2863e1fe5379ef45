import { describe, expect, it } from 'vitest';
import { adminOpenApi, deviceOpenApi } from '../../src/openapi/write';

type Operation = { summary?: string; description?: string; parameters?: any[]; requestBody?: any; responses: Record<string, any> };

describe('OpenAPI document', () => {
  it('describes every admin operation, parameter and response', async () => {
    const document = (await adminOpenApi()) as { openapi: string; paths: Record<string, Record<string, Operation>> };
    expect(document.openapi).toBe('3.1.0');
    const problems: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (!op.summary) problems.push(`${where}: no summary`);
        if (!op.description) problems.push(`${where}: no description`);
        for (const p of op.parameters ?? []) {
          if (!p.description) problems.push(`${where}: parameter ${p.name} has no description`);
        }
        for (const [status, response] of Object.entries(op.responses)) {
          if (!response.description || response.description === 'Default Response') problems.push(`${where}: response ${status} has no description`);
        }
        const success = Object.keys(op.responses).find((s) => s.startsWith('2'));
        if (!success) problems.push(`${where}: no success response`);
        if (path !== '/healthz' && !op.responses['401'] && !(op as any)['x-public']) {
          if (!['/users/auth'].includes(path)) problems.push(`${where}: 401 not documented`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('device API OpenAPI document', () => {
  it('describes /device/me and /update with their headers, expand values and 401', async () => {
    const document = (await deviceOpenApi()) as { info: { title: string }; paths: Record<string, Record<string, Operation>> };
    expect(document.info.title).toBe('Canopy Device API');
    const update = document.paths['/update'].get;
    expect(update.parameters!.filter((p) => p.in === 'header').map((p) => p.name).sort()).toEqual(['canopy-bundle-prn', 'canopy-release-prn', 'canopy-release-version']);
    expect(update.responses['401'].description).toMatch(/client certificate/);
    expect(document.paths['/device/me'].get.summary).toBeTruthy();
  });
});
