/** One bundle override: its window and bundle, and its devices (add by identifier, remove). */
import { Badge, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { listEvery } from '../../api/lists';
import { useSession } from '../../api/session-context';
import type { BundleOverride, Device } from '../../api/types';
import { AnchorLink } from '../../ui/AnchorLink';
import { ApiErrorAlert } from '../../ui/ApiError';
import { CreateForm } from '../../ui/CreateForm';
import { ResourceTable } from '../../ui/ResourceTable';
import { LoadingRows } from '../../ui/States';
import { notifySuccess } from '../../ui/notify';
import { Time } from '../../ui/Time';
import { useOne } from '../artifacts/queries';
import { isActive, useBundleNames } from './BundleOverridesPage';

interface OverrideDevice {
  prn: string;
  device_prn: string;
  identifier: string;
  inserted_at: string;
}

export function BundleOverridePage({ prn }: { prn: string }) {
  const { client, canWrite } = useSession();
  const override = useOne<BundleOverride>('bundle_overrides', 'bundle_override', prn);
  const bundleNames = useBundleNames();
  const devicesPath = `/bundle_overrides/${encodeURIComponent(prn)}/devices`;
  // The devices answer names prns only; one GET /devices/{prn} each gives the identifier to show.
  const devices = useQuery({
    queryKey: ['bundle-override-devices', prn],
    queryFn: async () => {
      const members = await listEvery<{ device_prn: string; inserted_at: string }>(client, devicesPath, 'devices');
      return Promise.all(
        members.map(async (m) => {
          const { device } = await client.request<{ device: Device }>('GET', `/devices/${encodeURIComponent(m.device_prn)}`);
          return { prn: m.device_prn, device_prn: m.device_prn, identifier: device.identifier, inserted_at: m.inserted_at };
        }),
      );
    },
  });
  if (override.error) return <ApiErrorAlert error={override.error} title="Could not load the bundle override" />;
  if (override.isPending) return <LoadingRows label="Loading bundle override" />;
  const o = override.data;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Override {o.name}
        </Title>
        {isActive(o) ? <Badge color="green">active</Badge> : <Badge color="gray">inactive</Badge>}
      </Group>
      <Text size="sm">
        Bundle {bundleNames.get(o.bundle_prn) ?? o.bundle_prn}, from <Time value={o.starts_at} /> {o.ends_at ? <>to <Time value={o.ends_at} /></> : 'with no end'}.
      </Text>
      {canWrite && <AddDevice overridePrn={prn} />}
      <ResourceTable<OverrideDevice>
        label="Devices of the override"
        query={devices}
        listKey={['bundle-override-devices', prn]}
        rowTestId="override-device-row"
        columns={[
          { header: 'Device', cell: (d) => <AnchorLink to="/devices/$prn" params={{ prn: d.device_prn }}>{d.identifier}</AnchorLink> },
          { header: 'Added', cell: (d) => <Time value={d.inserted_at} /> },
        ]}
        empty={{ title: 'No devices in this override', text: 'Add devices by identifier above; while the window is open they are offered this bundle ahead of any release.' }}
        remove={{ collection: `bundle_overrides/${encodeURIComponent(prn)}/devices`, question: (d) => `Remove ${d.identifier} from the override? It goes back to its releases.`, done: (d) => `${d.identifier} removed` }}
      />
    </Stack>
  );
}

function AddDevice({ overridePrn }: { overridePrn: string }) {
  const { client } = useSession();
  const queries = useQueryClient();
  const [identifier, setIdentifier] = useState('');
  const add = useMutation({
    mutationFn: async () => {
      const wanted = identifier.trim();
      const { devices } = await client.request<{ devices: Device[] }>('GET', '/devices', { query: { search: `identifier:'${wanted.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`, limit: 1 } });
      const device = devices[0];
      if (!device) throw new Error(`no device has the identifier ${wanted}`);
      return client.request('POST', `/bundle_overrides/${encodeURIComponent(overridePrn)}/devices`, { body: { device_prn: device.prn } });
    },
    onSuccess: () => {
      notifySuccess(`${identifier} added`);
      setIdentifier('');
      void queries.invalidateQueries({ queryKey: ['bundle-override-devices', overridePrn] });
    },
  });
  return (
    <CreateForm title="Add a device" submitLabel="Add device" pending={add.isPending} error={add.error} onSubmit={() => add.mutate()}>
      <TextInput label="Device identifier" value={identifier} onChange={(e) => setIdentifier(e.currentTarget.value)} required />
    </CreateForm>
  );
}
