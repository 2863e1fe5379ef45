/** A device's tunnels and web console shells, through the SDK's typed client. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { answerOf, listEvery } from '../../api/lists';
import type { ListItem } from '../../api/paths';
import { useSession } from '../../api/session-context';

export type Tunnel = ListItem<'/tunnels'>;

export const tunnelKeys = { ofDevice: (devicePrn: string) => ['tunnels', devicePrn] as const };

/** The device's tunnels, read every 5 s (the device opens and closes them). */
export const deviceTunnelsQuery = (client: CanopyClient, devicePrn: string) =>
  queryOptions({ queryKey: tunnelKeys.ofDevice(devicePrn), queryFn: () => listEvery(client, '/tunnels', 'tunnels', { search: `device_prn:'${devicePrn}'` }), refetchInterval: 5000 });

export function useDeviceTunnels(devicePrn: string) {
  const { client } = useSession();
  return useQuery(deviceTunnelsQuery(client, devicePrn));
}

export const closeTunnel = (client: CanopyClient, prn: string) => answerOf(client.api.PATCH('/tunnels/{prn}', { params: { path: { prn } }, body: { state: 'closed' } }));

/** A one-use URL of a web console shell on the device. */
export const openWebConsoleShell = (client: CanopyClient, devicePrn: string) => answerOf(client.api.POST('/web-console-shells', { body: { device_prn: devicePrn } }));
