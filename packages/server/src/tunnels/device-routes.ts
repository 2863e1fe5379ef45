/** The device API's tunnel calls (mutual TLS; the calling device is `deviceOf(request)`). */
import { Type } from 'typebox';
import { deviceOf } from '../http/device-request';
import type { ContextRoutes } from '../http/app-types';
import { invalidField } from '../http/errors';
import { list, Nullable, Prn, PrnParams, STANDARD_ERRORS } from '../http/schemas';
import { CidrList, PortNumber, Tunnel } from './api-schema';
import { closeDeviceTunnel, configureDeviceTunnel, listDeviceTunnels } from './device-service';
import { tunnelToWire } from './wire';

const data = Type.Object({ data: Tunnel }, { description: 'The tunnel.' });

const ConfigureFields = {
  cidr_blocks: CidrList('Networks (IPv4 or IPv6 CIDR) the device can spare for the tunnel; together at least two distinct usable addresses.', ['10.8.0.0/30']),
  port_ranges: Type.Array(Type.String({ minLength: 1, maxLength: 16 }), {
    minItems: 1,
    maxItems: 64,
    description: 'Ports for the server proxy port: `"51820-51830"` or `"22"`, 1 to 65535.',
    examples: [['8000-8010']],
  }),
  device_proxy_port: PortNumber("The device's proxy port inside the tunnel."),
  device_public_key: Type.String({ maxLength: 64, description: "The device's WireGuard public key: base64 of 32 bytes, as `wg pubkey` prints it.", examples: ['jb1Q8/yd0DkRJvH95GkTJYYNGn2IsDsJzkrGJpXRzlQ='] }),
};

const CONFIGURE_DESCRIPTION =
  'Opens a requested tunnel (anything else is a 409) and answers it with the server side chosen. The device then brings up WireGuard:\n\n' +
  '```\n[Interface]\nPrivateKey = <device private key>\nAddress = <device_proxy_ip_address>/32\n\n[Peer]\nPublicKey = <server_public_key>\n' +
  'Endpoint = <server_tunnel_ip_address>:<server_tunnel_port>\nAllowedIPs = <server_proxy_ip_address>/32\nPersistentKeepalive = 25\n```\n\n' +
  '(`/128` and `[address]:port` for IPv6.)';

export const tunnelDeviceRoutes: ContextRoutes = (app, platform) => {
  const { db } = platform;

  app.get('/tunnels', {
    schema: {
      tags: ['device tunnels'],
      summary: "The device's tunnels",
      description: 'Only requested and open tunnels that have not expired, oldest first.',
      querystring: Type.Object({
        page: Type.Optional(Type.String({ maxLength: 200, description: 'The `next_page` cursor of the previous page.' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
      }),
      response: { 200: list('tunnels', Tunnel), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listDeviceTunnels(db, deviceOf(request), request.query);
      return { tunnels: page.items.map(tunnelToWire), next_page: page.nextPage };
    },
  });

  app.post('/tunnels/configure', {
    schema: {
      tags: ['device tunnels'],
      summary: 'Configure a tunnel',
      description: CONFIGURE_DESCRIPTION,
      body: Type.Object({ tunnel_prn: Prn('The requested tunnel.'), ...ConfigureFields }),
      response: { 200: data, ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ data: tunnelToWire(await configureDeviceTunnel(platform, deviceOf(request), request.body.tunnel_prn, request.body)) }),
  });

  app.post('/tunnels/:prn/configure', {
    schema: {
      tags: ['device tunnels'],
      summary: 'Configure a tunnel (prn in the path)',
      description: `The same as \`POST /tunnels/configure\`; a tunnel_prn in the body, if sent, must match the path.\n\n${CONFIGURE_DESCRIPTION}`,
      params: PrnParams('Resource name of the tunnel.'),
      body: Type.Object({ tunnel_prn: Type.Optional(Prn('The same tunnel as the path.')), ...ConfigureFields }),
      response: { 200: data, ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const { prn } = request.params;
      if (request.body.tunnel_prn !== undefined && request.body.tunnel_prn !== prn) throw invalidField('tunnel_prn', 'mismatch', { path: prn });
      return { data: tunnelToWire(await configureDeviceTunnel(platform, deviceOf(request), prn, request.body)) };
    },
  });

  app.patch('/tunnels/:prn', {
    schema: {
      tags: ['device tunnels'],
      summary: 'Close a tunnel',
      description: '`{"state": "closed"}` only (any other state is a 422); closing a closed tunnel changes nothing.',
      params: PrnParams('Resource name of the tunnel.'),
      body: Type.Object({
        state: Type.String({ description: 'Only `closed`.', examples: ['closed'] }),
        close_reason: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 256, description: 'Why, recorded with the close.' }))),
      }),
      response: { 200: data, ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ data: tunnelToWire(await closeDeviceTunnel(db, deviceOf(request), request.params.prn, request.body)) }),
  });
};
