/**
 * A device's remote access: its tunnels (list, open with the device port, allow-list and time to
 * live, close) and a web console shell (POST /web-console-shells; the console opens the url the
 * API answers, the shell page itself is served by the server).
 */
import { Anchor, Button, Code, Group, NumberInput, Paper, Stack, TagsInput, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { ApiErrorAlert } from '../../ui/ApiError';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { CreateForm } from '../../ui/CreateForm';
import { ResourceTable } from '../../ui/ResourceTable';
import { notifyFailure, notifySuccess } from '../../ui/notify';
import { Time } from '../../ui/Time';
import { useCreateResource } from '../../ui/useCreateResource';
import { closeTunnel, openWebConsoleShell, tunnelKeys, useDeviceTunnels, type Tunnel } from './queries';

export function DeviceRemoteAccess({ devicePrn }: { devicePrn: string }) {
  const { canWrite } = useSession();
  return (
    <Stack>
      <Title order={2} size="h3">
        Remote access
      </Title>
      {canWrite && <WebConsoleShell devicePrn={devicePrn} />}
      <DeviceTunnels devicePrn={devicePrn} />
    </Stack>
  );
}

function WebConsoleShell({ devicePrn }: { devicePrn: string }) {
  const { client } = useSession();
  const shell = useMutation({
    mutationFn: () => openWebConsoleShell(client, devicePrn),
    // The answer holds the only copy of the url: open it at once, and keep a link in case the browser blocked the window.
    onSuccess: (answer) => void window.open(answer.url, '_blank', 'noopener'),
  });
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs" align="flex-start">
        <Group>
          <Button onClick={() => shell.mutate()} loading={shell.isPending}>
            Open a web console shell
          </Button>
        </Group>
        {shell.data && (
          <Text size="sm" data-testid="shell-url">
            <Anchor href={shell.data.url} target="_blank" rel="noopener">
              Open the shell
            </Anchor>{' '}
            (usable once, until <Time value={shell.data.expires_at} />)
          </Text>
        )}
        <ApiErrorAlert error={shell.error} title="Could not open a shell" />
      </Stack>
    </Paper>
  );
}

function DeviceTunnels({ devicePrn }: { devicePrn: string }) {
  const { client, canWrite } = useSession();
  const queries = useQueryClient();
  const listKey = tunnelKeys.ofDevice(devicePrn);
  const tunnels = useDeviceTunnels(devicePrn);
  const close = useMutation({
    mutationFn: (tunnel: Tunnel) => closeTunnel(client, tunnel.prn),
    onSuccess: () => {
      notifySuccess('Tunnel closed');
      void queries.invalidateQueries({ queryKey: listKey });
    },
    onError: notifyFailure,
  });
  return (
    <Stack gap="xs">
      <Title order={3} size="h4">
        Tunnels
      </Title>
      {canWrite && <OpenTunnel devicePrn={devicePrn} />}
      <ResourceTable<Tunnel>
        label="Tunnels"
        query={tunnels}
        listKey={listKey}
        rowTestId="tunnel-row"
        minWidth={640}
        columns={[
          { header: 'State', cell: (t) => t.state },
          { header: 'Device port', cell: (t) => t.device_tunnel_port },
          { header: 'Allowed from', cell: (t) => t.cidr_block_allowlist?.join(', ') || 'anywhere' },
          { header: 'Server end', cell: (t) => (t.server_proxy_port ? <Code>{`${t.server_proxy_ip_address ?? ''}:${t.server_proxy_port}`}</Code> : 'not yet') },
          { header: 'Expires', cell: (t) => <Time value={t.expires_at} relative /> },
          {
            header: 'Actions',
            cell: (t) =>
              canWrite && t.state !== 'closed' ? (
                <ConfirmButton size="xs" question="Close this tunnel? Connections through it end." onConfirm={() => close.mutate(t)}>
                  Close
                </ConfirmButton>
              ) : null,
          },
        ]}
        empty={{ title: 'No tunnels', text: 'Open a tunnel to reach a port of the device through the server (WireGuard); the device opens it at its next tunnels check.' }}
      />
    </Stack>
  );
}

function OpenTunnel({ devicePrn }: { devicePrn: string }) {
  const [port, setPort] = useState<number | string>(22);
  const [allowlist, setAllowlist] = useState<string[]>([]);
  const [ttl, setTtl] = useState<number | string>(3600);
  const open = useCreateResource('/tunnels', tunnelKeys.ofDevice(devicePrn), () => 'Tunnel requested: the device opens it at its next check');
  return (
    <CreateForm
      title="Open a tunnel"
      submitLabel="Open tunnel"
      pending={open.isPending}
      error={open.error}
      onSubmit={() => open.mutate({ device_prn: devicePrn, device_tunnel_port: Number(port), cidr_block_allowlist: allowlist.length ? allowlist : null, ttl: Number(ttl) })}
    >
      <Group align="flex-end" wrap="wrap">
        <NumberInput label="Device port" value={port} onChange={setPort} min={1} max={65535} required w={140} />
        <TagsInput label="Allowed from (CIDR)" description="Empty: any address" value={allowlist} onChange={setAllowlist} w={260} />
        <NumberInput label="Time to live (seconds)" value={ttl} onChange={setTtl} min={1} max={3600} w={180} />
      </Group>
    </CreateForm>
  );
}
