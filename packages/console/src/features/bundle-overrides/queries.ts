/** Bundle overrides and their devices, through the SDK's typed client. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { answerOf, listEvery } from '../../api/lists';
import type { ListItem } from '../../api/paths';
import { useSession } from '../../api/session-context';

export type BundleOverride = ListItem<'/bundle_overrides'>;
/** A device of an override, with the identifier to show (the override's answer names prns only). */
export interface OverrideDevice {
  prn: string;
  device_prn: string;
  identifier: string;
  inserted_at: string;
}

export const overrideKeys = {
  list: ['bundle-overrides'] as const,
  one: (prn: string) => ['bundle_override', prn] as const,
  devices: (prn: string) => ['bundle-override-devices', prn] as const,
};

export const overridesQuery = (client: CanopyClient) => queryOptions({ queryKey: overrideKeys.list, queryFn: () => listEvery(client, '/bundle_overrides', 'bundle_overrides', { order: 'asc' }) });

export const overrideQuery = (client: CanopyClient, prn: string) =>
  queryOptions({ queryKey: overrideKeys.one(prn), queryFn: () => answerOf(client.api.GET('/bundle_overrides/{prn}', { params: { path: { prn } } })).then((b) => b.bundle_override) });

/** The override's devices; one GET /devices/{prn} each gives the identifier to show. */
export const overrideDevicesQuery = (client: CanopyClient, prn: string) =>
  queryOptions({
    queryKey: overrideKeys.devices(prn),
    queryFn: async (): Promise<OverrideDevice[]> => {
      const members = await listEvery(client, '/bundle_overrides/{prn}/devices', 'devices', undefined, { prn });
      return Promise.all(
        members.map(async (m) => {
          const { device } = await answerOf(client.api.GET('/devices/{prn}', { params: { path: { prn: m.device_prn } } }));
          return { prn: m.device_prn, device_prn: m.device_prn, identifier: device.identifier, inserted_at: m.inserted_at };
        }),
      );
    },
  });

export function useOverrides() {
  const { client } = useSession();
  return useQuery(overridesQuery(client));
}

export function useOverride(prn: string) {
  const { client } = useSession();
  return useQuery(overrideQuery(client, prn));
}

export function useOverrideDevices(prn: string) {
  const { client } = useSession();
  return useQuery(overrideDevicesQuery(client, prn));
}

/** Adds the device with this identifier to the override (found by a search for it). */
export async function addOverrideDevice(client: CanopyClient, overridePrn: string, identifier: string) {
  const { devices } = await answerOf(client.api.GET('/devices', { params: { query: { search: `identifier:'${identifier.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`, limit: 1 } } }));
  const device = devices[0];
  if (!device) throw new Error(`no device has the identifier ${identifier}`);
  return answerOf(client.api.POST('/bundle_overrides/{prn}/devices', { params: { path: { prn: overridePrn } }, body: { device_prn: device.prn } }));
}
