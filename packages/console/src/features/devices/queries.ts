/** Devices through the SDK's typed client: the query keys and options of one device, and its writes. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { answerOf, listPage } from '../../api/lists';
import type { BodyOf, ListItem } from '../../api/paths';
import { useSession } from '../../api/session-context';

export type Device = ListItem<'/devices'>;

export const deviceKeys = {
  /** Every device list and count (the fleet's pages and counts start with it). */
  lists: ['devices'] as const,
  one: (prn: string) => ['device', prn] as const,
  explanation: (prn: string) => ['explain', prn] as const,
  updateReports: (prn: string) => ['device', prn, 'update-reports'] as const,
};

export const deviceQuery = (client: CanopyClient, prn: string) =>
  queryOptions({ queryKey: deviceKeys.one(prn), queryFn: () => answerOf(client.api.GET('/devices/{prn}', { params: { path: { prn } } })).then((b) => b.device) });

export const explanationQuery = (client: CanopyClient, prn: string) =>
  queryOptions({ queryKey: deviceKeys.explanation(prn), queryFn: () => answerOf(client.api.GET('/devices/{prn}/update/explain', { params: { path: { prn } } })), retry: false });

export function useDevice(prn: string) {
  const { client } = useSession();
  return useQuery(deviceQuery(client, prn));
}

export function useExplanation(prn: string) {
  const { client } = useSession();
  return useQuery(explanationQuery(client, prn));
}

export const patchDevice = (client: CanopyClient, prn: string, body: BodyOf<'/devices/{prn}', 'patch'>) => answerOf(client.api.PATCH('/devices/{prn}', { params: { path: { prn } }, body }));

/** An update check as the device would make it (POST /devices/{prn}/update). */
export const checkForUpdate = (client: CanopyClient, prn: string, body: BodyOf<'/devices/{prn}/update', 'post'>) => answerOf(client.api.POST('/devices/{prn}/update', { params: { path: { prn } }, body }));

/** The device's latest 100 update reports (its `device.update_reported` events), for its update history. */
export const updateReportsQuery = (client: CanopyClient, prn: string) =>
  queryOptions({ queryKey: deviceKeys.updateReports(prn), queryFn: () => listPage(client, '/events', 'events', { resource_prn: prn, type: 'device', subtype: 'update_reported', limit: 100 }) });

export function useUpdateReports(prn: string) {
  const { client } = useSession();
  return useQuery(updateReportsQuery(client, prn));
}
