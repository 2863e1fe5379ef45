import { describe, expect, it } from 'vitest';
import type { LocalTunnel } from './interface.ts';
import { planTunnels } from './plan.ts';
import { parsePortRange } from './port-ranges.ts';
import type { WireTunnel } from './wire.ts';

const now = new Date('2026-11-26T12:00:00Z');
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
const ranges = ['22', '8080-8090'].map((r) => parsePortRange(r)!);

const wire = (prn: string, state: WireTunnel['state'], port = 22, expires = at(600)): WireTunnel => ({
  prn,
  state,
  device_tunnel_port: port,
  expires_at: expires.toISOString(),
  device_proxy_ip_address: null,
  device_proxy_port: null,
  device_public_key: null,
  server_proxy_ip_address: null,
  server_proxy_port: null,
  server_public_key: null,
  server_tunnel_ip_address: null,
  server_tunnel_port: null,
});
const local = (prn: string, expires = at(600)): LocalTunnel => ({ prn, interfaceName: 'cnpy0', configPath: '/x', expiresAt: expires, deviceTunnelPort: 22, deviceProxyPort: 40000, deviceProxyIpAddress: '10.0.0.2' });
const kinds = (actions: ReturnType<typeof planTunnels>) => actions.map((a) => `${a.kind}:${a.tunnel.prn}${'reason' in a ? `:${a.reason}` : ''}`);

describe('planTunnels', () => {
  it('configures requested tunnels to allowed ports and refuses the others', () => {
    const listed = [wire('t1', 'requested', 22), wire('t2', 'requested', 8085), wire('t3', 'requested', 8091), wire('t4', 'requested', 80)];
    expect(kinds(planTunnels({ enabled: true, portRanges: ranges, listed, local: [], now }))).toEqual([
      'configure:t1',
      'configure:t2',
      'refuse:t3:port_not_allowed',
      'refuse:t4:port_not_allowed',
    ]);
  });

  it('configures a web console shell tunnel (port 0) while the shell is enabled, whatever port_ranges says', () => {
    const listed = [wire('shell', 'requested', 0)];
    expect(kinds(planTunnels({ enabled: true, portRanges: ranges, listed, local: [], now }))).toEqual(['configure:shell']);
    expect(kinds(planTunnels({ enabled: true, portRanges: ranges, shell: false, listed, local: [], now }))).toEqual(['refuse:shell:shell_disabled']);
  });

  it('keeps open tunnels it has, closes open ones it has no key for, and skips listed ones already expired', () => {
    const listed = [wire('mine', 'open'), wire('lost', 'open'), wire('late', 'requested', 22, at(0))];
    expect(kinds(planTunnels({ enabled: true, portRanges: ranges, listed, local: [local('mine')], now }))).toEqual(['refuse:lost:device_key_lost']);
  });

  it('takes down what expired by its own clock, even while the server still lists it', () => {
    const listed = [wire('a', 'open', 22, at(0))];
    expect(kinds(planTunnels({ enabled: true, portRanges: ranges, listed, local: [local('a', at(0))], now }))).toEqual(['take_down:a:expired']);
  });

  it('takes down what the server stopped listing; keeps everything when the poll failed, until expiry', () => {
    expect(kinds(planTunnels({ enabled: true, portRanges: ranges, listed: [], local: [local('a')], now }))).toEqual(['take_down:a:closed']);
    expect(kinds(planTunnels({ enabled: true, portRanges: ranges, listed: null, local: [local('a'), local('b', at(-1))], now }))).toEqual(['take_down:b:expired']);
  });

  it('follows an extended expires_at, and an extension saves a tunnel whose old expiry passed', () => {
    const extended = planTunnels({ enabled: true, portRanges: ranges, listed: [wire('a', 'open', 22, at(3600))], local: [local('a', at(-5))], now });
    expect(extended).toEqual([{ kind: 'extend', tunnel: local('a', at(-5)), expiresAt: at(3600) }]);
    expect(planTunnels({ enabled: true, portRanges: ranges, listed: [wire('a', 'open', 22, at(600))], local: [local('a', at(600))], now })).toEqual([]);
  });

  it('disabled: takes everything down and configures nothing', () => {
    expect(kinds(planTunnels({ enabled: false, portRanges: ranges, listed: [wire('r', 'requested')], local: [local('a')], now }))).toEqual(['take_down:a:disabled']);
  });
});
