import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, Nullable, Prn, PrnParams, single, STANDARD_ERRORS } from '../http/schemas';
import { CidrList, PortNumber, Tunnel, TunnelWithDataPlane } from './api-schema';
import { dataPlaneState } from './data-plane/support';
import { createTunnel, DEFAULT_TUNNEL_TTL, getTunnel, listTunnels, tunnelServerConfig, updateTunnel } from './service';
import { tunnelToWire } from './wire';

const TunnelParams = PrnParams('Resource name of the tunnel.');
const Ttl = (options: { default?: number } = {}) =>
  Type.Integer({ minimum: 1, maximum: 3600, description: 'Seconds from now until the tunnel closes, 1 to 3600.', examples: [DEFAULT_TUNNEL_TTL], ...options });

export const tunnelRoutes: ContextRoutes = (app, platform) => {
  const { db } = platform;

  app.post('/tunnels', {
    config: { role: 'write' },
    schema: {
      tags: ['tunnels'],
      summary: 'Request a tunnel',
      description: 'Asks a device to open a WireGuard tunnel to the server. The tunnel starts `requested`; the device sees it in its `GET /tunnels` and configures it.',
      body: Type.Object({
        device_prn: Prn('The device to reach.'),
        device_tunnel_port: PortNumber('The port on the device to reach.'),
        cidr_block_allowlist: Type.Optional(Nullable(CidrList('Source networks (IPv4 or IPv6 CIDR) allowed to use the tunnel.', ['203.0.113.0/24']))),
        ttl: Type.Optional(Ttl({ default: DEFAULT_TUNNEL_TTL })),
      }),
      response: { 201: single('tunnel', Tunnel), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ tunnel: tunnelToWire(await createTunnel(db, actorOf(request), request.body)) }),
  });

  app.get('/tunnels', {
    config: { role: 'read' },
    schema: {
      tags: ['tunnels'],
      summary: 'List tunnels',
      description: "Search fields: state (`:`), device_prn (`:`), inserted_at and expires_at (`:` `<` `<=` `>` `>=`). Example: `state:'open'`.",
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('tunnels', Tunnel), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listTunnels(db, actorOf(request), request.query);
      return { tunnels: page.items.map(tunnelToWire), next_page: page.nextPage };
    },
  });

  app.get('/tunnels/:prn', {
    config: { role: 'read' },
    schema: {
      tags: ['tunnels'],
      summary: 'Get a tunnel',
      description: "One tunnel by its prn, with `server_data_plane`: whether this server process carries tunnels' traffic.",
      params: TunnelParams,
      response: { 200: single('tunnel', TunnelWithDataPlane), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({
      tunnel: { ...tunnelToWire(await getTunnel(db, actorOf(request), request.params.prn)), server_data_plane: dataPlaneState(platform.config.tunnelDataPlane) },
    }),
  });

  app.patch('/tunnels/:prn', {
    config: { role: 'write' },
    schema: {
      tags: ['tunnels'],
      summary: 'Close a tunnel or extend it',
      description:
        '`{"state": "closed"}` closes the tunnel (closing a closed one changes nothing); any other state is a 422. `{"ttl": n}` moves expires_at to n seconds from now ' +
        '(1 to 3600) while the tunnel is requested or open and not yet expired, else 409.',
      params: TunnelParams,
      body: Type.Object({
        state: Type.Optional(Type.String({ description: 'Only `closed`.', examples: ['closed'] })),
        ttl: Type.Optional(Ttl()),
        close_reason: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 256, description: 'Recorded with the close.' }))),
      }),
      // `{"data": tunnel}`, as the public API answers this call (unlike GET, which wraps in `tunnel`).
      response: { 200: Type.Object({ data: Tunnel }, { description: 'The tunnel.' }), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ data: tunnelToWire(await updateTunnel(db, actorOf(request), request.params.prn, request.body)) }),
  });

  app.get('/tunnels/:prn/wireguard', {
    config: { role: 'admin' },
    schema: {
      tags: ['tunnels'],
      summary: "The server end's WireGuard configuration",
      description:
        'The wg-quick file for the server side of an open tunnel, as text/plain (it holds the private key, so an admin key is required). ' +
        '409 `tunnel_not_open` for a tunnel that is requested or closed. The device builds its own end from the configure answer; see the device API.',
      params: TunnelParams,
      produces: ['text/plain'],
      response: { 200: Type.String({ description: 'wg-quick configuration.' }), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.type('text/plain; charset=utf-8').send(await tunnelServerConfig(platform, actorOf(request), request.params.prn)),
  });
};
