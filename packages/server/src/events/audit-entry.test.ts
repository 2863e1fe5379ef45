import { describe, expect, it } from 'vitest';
import { auditEntry, auditSubtype, redact, REDACTED } from './audit-entry';

const collections = new Set(['products', 'devices', 'webhooks', 'bundle_overrides', 'orgs', 'releases', 'binaries']);

describe('audit entries', () => {
  it('names the subtype from the route', () => {
    expect(auditSubtype({ method: 'POST', path: '/products' }, collections)).toBe('created');
    expect(auditSubtype({ method: 'PATCH', path: '/products/{prn}' }, collections)).toBe('updated');
    expect(auditSubtype({ method: 'PUT', path: '/binaries/{prn}/parts/{index}' }, collections)).toBe('updated');
    expect(auditSubtype({ method: 'DELETE', path: '/bundle_overrides/{prn}/devices/{device_prn}' }, collections)).toBe('deleted');
    expect(auditSubtype({ method: 'POST', path: '/webhooks/{prn}/roll_secret' }, collections)).toBe('roll_secret');
    // A sub-collection is not an action.
    expect(auditSubtype({ method: 'POST', path: '/bundle_overrides/{prn}/devices' }, collections)).toBe('created');
  });

  it('redacts secrets by field name, credentials in URLs, and cuts long strings', () => {
    expect(redact({ password: 'hunter22', secret: 's', token: 't', private_key: 'k', key: 'k', api_key: 'k', device_public_key: 'pub', name: 'n' })).toEqual({
      password: REDACTED,
      secret: REDACTED,
      token: REDACTED,
      private_key: REDACTED,
      key: REDACTED,
      api_key: REDACTED,
      device_public_key: 'pub',
      name: 'n',
    });
    expect(redact({ url: 'https://user:pass@hooks.example.com/in?x=1' })).toEqual({ url: `https://${REDACTED}@hooks.example.com/in?x=1` });
    expect(redact({ nested: [{ webhook_secret: 'x' }] })).toEqual({ nested: [{ webhook_secret: REDACTED }] });
    expect((redact('x'.repeat(5000)) as string).length).toBe(4097);
    // What jsonb refuses: NUL and lone surrogates, in values and names.
    expect(redact({ 'a\u0000': 'b\u0000', name: '\ud800x', ok: '\ud83d\ude00' })).toEqual({ 'a\ufffd': 'b\ufffd', name: '\ufffdx', ok: '\ud83d\ude00' });
    let deep: unknown = 'bottom';
    for (let i = 0; i < 40; i++) deep = { a: deep };
    expect(JSON.stringify(redact(deep))).toContain('[too deep]');
  });

  it('takes the resource from the path, else from the answer', () => {
    const updated = auditEntry({ route: { method: 'PATCH', path: '/products/{prn}' }, params: { prn: 'prn:1:o:product:p' }, body: { name: 'n' }, answer: { product: { prn: 'prn:1:o:product:p' } }, collections });
    expect(updated).toMatchObject({ subtype: 'updated', resourcePrn: 'prn:1:o:product:p', data: { operation: 'PATCH /products/{prn}', resource_type: 'product', changes: { name: 'n' } } });
    const created = auditEntry({ route: { method: 'POST', path: '/webhooks' }, params: {}, body: { url: 'https://a:b@h/x' }, answer: { webhook: { prn: 'prn:1:o:webhook:w', secret: 'whsec' } }, collections });
    expect(created).toMatchObject({ subtype: 'created', resourcePrn: 'prn:1:o:webhook:w', data: { resource_type: 'webhook', changes: { url: `https://${REDACTED}@h/x` } } });
    const legacyDelete = auditEntry({ route: { method: 'DELETE', path: '/orgs/{org_name}/products/{product_name}/devices/{identifier}' }, params: { org_name: 'o', product_name: 'p', identifier: 'd1' }, body: undefined, answer: undefined, collections: new Set([...collections, 'products']) });
    expect(legacyDelete).toMatchObject({ subtype: 'deleted', resourcePrn: null, data: { resource_type: 'device', path: { identifier: 'd1' }, changes: null } });
  });
});
