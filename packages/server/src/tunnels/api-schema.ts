/** The TypeBox shapes both tunnel APIs share. */
import { Type } from 'typebox';
import { Nullable, Prn, ResourceFields, Timestamp } from '../http/schemas';

export const PortNumber = (description: string) => Type.Integer({ minimum: 1, maximum: 65535, description, examples: [22] });

export const CidrList = (description: string, examples: string[]) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 64, description, examples: [examples] });

const NullableIp = (description: string, example: string) => Nullable(Type.String({ description, examples: [example] }));
const NullablePort = (description: string) => Nullable(Type.Integer({ description, examples: [51820] }));

export const Tunnel = Type.Object(
  {
    ...ResourceFields,
    device_prn: Prn('The device the tunnel reaches.'),
    state: Type.Union([Type.Literal('requested'), Type.Literal('open'), Type.Literal('closed')], {
      description: 'requested -> open (the device configured it) -> closed (by an admin, the device, or at expires_at). Never backwards.',
    }),
    device_tunnel_port: PortNumber('The port on the device the operator wants to reach (e.g. 22 for SSH).'),
    cidr_block_allowlist: Type.Array(Type.String(), { description: 'Source networks allowed to use the tunnel; empty allows any.', examples: [['203.0.113.0/24']] }),
    expires_at: Timestamp('When the tunnel closes by itself.'),
    close_reason: Nullable(Type.String({ description: 'Why it closed: expired, closed_by_user, closed_by_device or what the closer said.', examples: ['expired'] })),
    device_proxy_ip_address: NullableIp("The device's address inside the tunnel, from its cidr_blocks.", '10.8.0.2'),
    device_proxy_port: NullablePort("The device's proxy port inside the tunnel, which forwards to device_tunnel_port."),
    device_public_key: Nullable(Type.String({ description: "The device's WireGuard public key (base64 of 32 bytes)." })),
    server_proxy_ip_address: NullableIp("The server's address inside the tunnel, from the device's cidr_blocks.", '10.8.0.1'),
    server_proxy_port: NullablePort("The server's proxy port inside the tunnel, from the device's port_ranges."),
    server_public_key: Nullable(Type.String({ description: "The server's WireGuard public key, fresh for this tunnel." })),
    server_tunnel_ip_address: NullableIp('The WireGuard endpoint the device dials.', '198.51.100.7'),
    server_tunnel_port: NullablePort("The endpoint's UDP port; no two open tunnels share one."),
  },
  { description: 'A remote-access tunnel. The server-side fields are null until the device configures it.' },
);

/** `GET /tunnels/{prn}` also says whether this server process carries tunnel traffic. */
export const TunnelWithDataPlane = Type.Object(
  {
    ...Tunnel.properties,
    server_data_plane: Type.Object(
      {
        status: Type.Union([Type.Literal('running'), Type.Literal('unavailable'), Type.Literal('disabled')], {
          description: '`running`: this server runs open tunnels\' WireGuard interfaces and proxies. `unavailable`: it cannot (see reason); the tunnel opens and closes but carries no traffic. `disabled`: CANOPY_TUNNEL_DATA_PLANE=off.',
        }),
        reason: Nullable(Type.String({ description: 'Why not running: not_root, no_tun_device, missing_tools:..., or the setting.', examples: ['not_root'] })),
      },
      { description: "The answering server process's tunnel data plane." },
    ),
  },
  { description: 'A remote-access tunnel, with the answering server process\'s data plane state.' },
);
