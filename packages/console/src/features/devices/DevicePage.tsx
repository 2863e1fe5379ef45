/** One device: its fields (editable), the update explanation, an admin-side update check, its update history, certificates, tunnels and shells, its raw events. */
import { Badge, Button, Code, Grid, Group, Paper, Select, Stack, Switch, Table, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useSession } from '../../api/session-context';
import { ApiErrorAlert } from '../../ui/ApiError';
import { LoadingRows } from '../../ui/States';
import { notifyFailure, notifySuccess } from '../../ui/notify';
import { Time } from '../../ui/Time';
import { PrnLink } from '../../ui/PrnLink';
import { DeviceCertificates } from '../certificates/DeviceCertificates';
import { DeviceRemoteAccess } from '../remote-access/DeviceRemoteAccess';
import { EventTimeline } from '../events/EventLog';
import { useLiveEvents } from '../events/useLiveEvents';
import { namesOf, useCohorts, useProducts } from '../products/queries';
import { UpdateHistory } from './UpdateHistory';
import { checkForUpdate, deviceKeys, patchDevice, useDevice, useExplanation, type Device } from './queries';
import { reasonInWords, statusInWords } from './explanation-words';

export function DevicePage({ prn }: { prn: string }) {
  const queries = useQueryClient();
  const device = useDevice(prn);
  useLiveEvents({ resource_prn: prn }, () => {
    void queries.invalidateQueries({ queryKey: deviceKeys.one(prn) });
    void queries.invalidateQueries({ queryKey: deviceKeys.explanation(prn) });
    void queries.invalidateQueries({ queryKey: deviceKeys.updateReports(prn) });
  });
  if (device.isPending) return <LoadingRows rows={6} label="Loading device" />;
  if (device.error) return <ApiErrorAlert error={device.error} title="Could not load the device" />;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          {device.data.identifier}
        </Title>
        {device.data.quarantined && <Badge color="orange">Quarantined</Badge>}
      </Group>
      <Text size="xs" ff="monospace" c="dimmed">
        {device.data.prn}
      </Text>
      <Grid>
        <Grid.Col span={{ base: 12, md: 6 }}>
          <DeviceFields device={device.data} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 6 }}>
          <Stack>
            <UpdateExplanation prn={prn} />
            <UpdateCheck device={device.data} />
          </Stack>
        </Grid.Col>
      </Grid>
      <UpdateHistory prn={prn} />
      <DeviceCertificates devicePrn={prn} />
      <DeviceRemoteAccess devicePrn={prn} />
      <EventTimeline filters={{ resource_prn: prn }} title="Raw events of this device" limit={20} />
    </Stack>
  );
}

function DeviceFields({ device }: { device: Device }) {
  const { client, canWrite } = useSession();
  const queries = useQueryClient();
  const cohorts = useCohorts(device.product_prn);
  const products = useProducts();
  const [draft, setDraft] = useState(device);
  useEffect(() => setDraft(device), [device]);
  const save = useMutation({
    mutationFn: () =>
      patchDevice(client, device.prn, { description: draft.description || null, tags: draft.tags?.length ? draft.tags : null, target: draft.target || null, cohort_prn: draft.cohort_prn, quarantined: draft.quarantined }),
    onSuccess: () => {
      notifySuccess('Device saved');
      void queries.invalidateQueries({ queryKey: deviceKeys.one(device.prn) });
      void queries.invalidateQueries({ queryKey: deviceKeys.lists });
    },
    onError: notifyFailure,
  });
  return (
    <Paper withBorder p="md">
      <Stack gap="sm" component="form" onSubmit={(e) => { e.preventDefault(); save.mutate(); }}>
        <Title order={2} size="h4">
          Device
        </Title>
        <Text size="sm">
          Product: <b>{namesOf(products.data).get(device.product_prn) ?? '…'}</b> · Last connected: <Time value={device.last_connected_at} relative /> · Release: {device.reported_release_version ?? 'none reported'}
        </Text>
        <TextInput label="Description" value={draft.description ?? ''} readOnly={!canWrite} onChange={(e) => setDraft({ ...draft, description: e.currentTarget.value })} />
        <TagsInput label="Tags" value={draft.tags ?? []} readOnly={!canWrite} onChange={(tags) => setDraft({ ...draft, tags })} />
        <TextInput label="Target" value={draft.target ?? ''} readOnly={!canWrite} onChange={(e) => setDraft({ ...draft, target: e.currentTarget.value })} />
        <Select label="Cohort" data={(cohorts.data ?? []).map((c) => ({ value: c.prn, label: c.name }))} value={draft.cohort_prn} clearable readOnly={!canWrite} onChange={(cohort_prn) => setDraft({ ...draft, cohort_prn })} />
        <Switch label="Quarantined" checked={draft.quarantined} disabled={!canWrite} onChange={(e) => setDraft({ ...draft, quarantined: e.currentTarget.checked })} />
        <ApiErrorAlert error={save.error} title="Could not save" />
        {canWrite && (
          <Group>
            <Button type="submit" loading={save.isPending}>
              Save device
            </Button>
          </Group>
        )}
      </Stack>
    </Paper>
  );
}

function UpdateExplanation({ prn }: { prn: string }) {
  const explain = useExplanation(prn);
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4" mb="xs">
        Why this device gets what it gets
      </Title>
      <ApiErrorAlert error={explain.error} title="No explanation" />
      {explain.data && (
        <Stack gap="xs">
          <Text size="sm" data-testid="explain-status">
            {statusInWords(explain.data.status, explain.data.source_type)} <Code>{explain.data.status}</Code>
            {explain.data.would_claim && ' (a check now would claim a phase slot)'}
          </Text>
          <Table fz="xs" aria-label="Resolution steps">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Step</Table.Th>
                <Table.Th>Outcome</Table.Th>
                <Table.Th>Release</Table.Th>
                <Table.Th>Why</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {explain.data.steps.map((s, i) => (
                <Table.Tr key={i}>
                  <Table.Td>{s.step}</Table.Td>
                  <Table.Td>
                    <Badge size="xs" color={s.outcome === 'taken' ? 'green' : s.outcome === 'skipped' ? 'gray' : 'blue'}>
                      {s.outcome}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{s.subject_prn ? <PrnLink prn={s.subject_prn} /> : '—'}</Table.Td>
                  <Table.Td title={s.reason}>{reasonInWords(s.reason, s.detail)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Stack>
      )}
    </Paper>
  );
}

function UpdateCheck({ device }: { device: Device }) {
  const { client, canWrite } = useSession();
  const queries = useQueryClient();
  const [version, setVersion] = useState(device.reported_release_version ?? '');
  const [write, setWrite] = useState(false);
  const check = useMutation({
    mutationFn: () => checkForUpdate(client, device.prn, { release_version: version.trim() || null, ...(device.reported_release_prn && !version.trim() ? { release_prn: device.reported_release_prn } : {}), write }),
    onSuccess: () => {
      void queries.invalidateQueries({ queryKey: deviceKeys.one(device.prn) });
      void queries.invalidateQueries({ queryKey: deviceKeys.lists });
    },
    onError: notifyFailure,
  });
  if (!canWrite) return null;
  return (
    <Paper withBorder p="md">
      <Stack gap="xs" component="form" onSubmit={(e) => { e.preventDefault(); check.mutate(); }}>
        <Title order={2} size="h4">
          Check for an update (as the device would)
        </Title>
        <TextInput label="Reported version" value={version} onChange={(e) => setVersion(e.currentTarget.value)} placeholder="1.0.0" />
        <Switch label="Store this as what the device runs" checked={write} onChange={(e) => setWrite(e.currentTarget.checked)} />
        <Group>
          <Button type="submit" variant="light" loading={check.isPending}>
            Check now
          </Button>
        </Group>
        <ApiErrorAlert error={check.error} title="The check failed" />
        {check.data && (
          <Text size="sm" data-testid="check-answer">
            Answer: <Code>{check.data.status}</Code> (source {check.data.source_type}
            {check.data.bundle_prn ? `, bundle ${check.data.bundle_prn}` : ''})
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
