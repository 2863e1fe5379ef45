import { afterEach, describe, expect, it, vi } from 'vitest';
import { earlyOrNetwork } from '../../src/api/early-responses';

const url = `${window.location.origin}/devices?limit=100&order=desc`;
const auth = { authorization: 'Bearer key-1' };

function leaveEarly(response: Promise<Response>, authorization = auth.authorization) {
  window.canopyEarlyResponses = { [url]: { authorization, response } };
}

afterEach(() => {
  delete window.canopyEarlyResponses;
  vi.unstubAllGlobals();
});

describe('the transport that takes answers asked for before the code arrived', () => {
  it('gives the early answer once, for the same URL and key, then goes to the network', async () => {
    const network = vi.fn(async () => new Response('from the network'));
    vi.stubGlobal('fetch', network);
    leaveEarly(Promise.resolve(new Response('early')));
    expect(await (await earlyOrNetwork(url, { method: 'GET', headers: auth })).text()).toBe('early');
    expect(network).not.toHaveBeenCalled();
    expect(await (await earlyOrNetwork(url, { method: 'GET', headers: auth })).text()).toBe('from the network');
  });

  it('leaves the early answer alone for another key, another method or another URL', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('from the network')));
    leaveEarly(Promise.resolve(new Response('early')));
    expect(await (await earlyOrNetwork(url, { method: 'GET', headers: { authorization: 'Bearer key-2' } })).text()).toBe('from the network');
    expect(await (await earlyOrNetwork(url, { method: 'POST', headers: auth, body: '{}' })).text()).toBe('from the network');
    expect(await (await earlyOrNetwork(`${url}&page=2`, { method: 'GET', headers: auth })).text()).toBe('from the network');
    expect(Object.keys(window.canopyEarlyResponses!)).toEqual([url]);
    // A Request carrying the same URL and key takes it.
    expect(await (await earlyOrNetwork(new Request(url, { headers: auth }))).text()).toBe('early');
  });

  it('asks the network again when the early request failed', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('from the network')));
    leaveEarly(Promise.reject(new TypeError('Failed to fetch')));
    expect(await (await earlyOrNetwork(url, { method: 'GET', headers: auth })).text()).toBe('from the network');
  });
});
