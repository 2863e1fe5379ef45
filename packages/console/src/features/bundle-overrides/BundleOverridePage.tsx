/** One bundle override: its window and bundle, and its devices (add by identifier, remove). */
import { Badge, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { AnchorLink } from '../../ui/AnchorLink';
import { ApiErrorAlert } from '../../ui/ApiError';
import { CreateForm } from '../../ui/CreateForm';
import { ResourceTable } from '../../ui/ResourceTable';
import { LoadingRows } from '../../ui/States';
import { notifySuccess } from '../../ui/notify';
import { Time } from '../../ui/Time';
import { isActive, useBundleNames } from './BundleOverridesPage';
import { addOverrideDevice, overrideKeys, useOverride, useOverrideDevices, type OverrideDevice } from './queries';

export function BundleOverridePage({ prn }: { prn: string }) {
  const { canWrite } = useSession();
  const override = useOverride(prn);
  const bundleNames = useBundleNames();
  const devices = useOverrideDevices(prn);
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
        listKey={overrideKeys.devices(prn)}
        rowTestId="override-device-row"
        columns={[
          { header: 'Device', cell: (d) => <AnchorLink to="/devices/$prn" params={{ prn: d.device_prn }}>{d.identifier}</AnchorLink> },
          { header: 'Added', cell: (d) => <Time value={d.inserted_at} /> },
        ]}
        empty={{ title: 'No devices in this override', text: 'Add devices by identifier above; while the window is open they are offered this bundle ahead of any release.' }}
        remove={{ target: (d) => ({ path: '/bundle_overrides/{prn}/devices/{device_prn}', params: { prn, device_prn: d.device_prn } }), question: (d) => `Remove ${d.identifier} from the override? It goes back to its releases.`, done: (d) => `${d.identifier} removed` }}
      />
    </Stack>
  );
}

function AddDevice({ overridePrn }: { overridePrn: string }) {
  const { client } = useSession();
  const queries = useQueryClient();
  const [identifier, setIdentifier] = useState('');
  const add = useMutation({
    mutationFn: () => addOverrideDevice(client, overridePrn, identifier.trim()),
    onSuccess: () => {
      notifySuccess(`${identifier} added`);
      setIdentifier('');
      void queries.invalidateQueries({ queryKey: overrideKeys.devices(overridePrn) });
    },
  });
  return (
    <CreateForm title="Add a device" submitLabel="Add device" pending={add.isPending} error={add.error} onSubmit={() => add.mutate()}>
      <TextInput label="Device identifier" value={identifier} onChange={(e) => setIdentifier(e.currentTarget.value)} required />
    </CreateForm>
  );
}
