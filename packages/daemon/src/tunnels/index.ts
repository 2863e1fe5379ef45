/** The device side of remote-access tunnels; agent.ts is the entry point. */
export { checkTunnelConfig, createTunnelAgent, type PollResult, type TunnelAgent, type TunnelAgentOptions, type TunnelConfig } from './agent.ts';
export { loggingTunnelInterface, type LocalTunnel, type TunnelInterface } from './interface.ts';
export { deviceApiFromConfig, deviceApiRequestOver, deviceApiRequestOverClient, type DeviceApi, type DeviceApiRequest, type DeviceApiResponse, type TextTransport } from './request.ts';
export { defaultTunnelInterface, runTunnels } from './run.ts';
export { wireguardTunnelInterface } from './wireguard-interface.ts';
