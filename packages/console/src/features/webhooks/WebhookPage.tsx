/** One webhook: its url, description and events edited in place, enable/disable, roll its secret (shown once), test fire, delete, and its delivery attempts with redeliver. */
import { Button, Code, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { WebhookEventsField } from './WebhookEventsField';
import { useSession } from '../../api/session-context';
import { AdminOnly } from '../../ui/AdminOnly';
import { ApiErrorAlert } from '../../ui/ApiError';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { SecretOnce } from '../../ui/SecretOnce';
import { ResourceTable } from '../../ui/ResourceTable';
import { LoadingRows } from '../../ui/States';
import { notifyFailure, notifySuccess } from '../../ui/notify';
import { Time } from '../../ui/Time';
import { StateBadge } from './WebhooksPage';
import { patchWebhook, deleteWebhook, redeliverWebhookEvent, rollWebhookSecret, setWebhookState, testFireWebhook, useDeliveries, useWebhook, webhookKeys, type DeliveryAttempt, type Webhook } from './queries';

export function WebhookPage({ prn }: { prn: string }) {
  return (
    <AdminOnly what="webhooks">
      <WebhookDetail prn={prn} />
    </AdminOnly>
  );
}

function WebhookDetail({ prn }: { prn: string }) {
  const webhook = useWebhook(prn);
  if (webhook.isPending) return <LoadingRows rows={4} label="Loading webhook" />;
  if (webhook.error) return <ApiErrorAlert error={webhook.error} title="Could not load the webhook" />;
  return (
    <Stack>
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h2" style={{ wordBreak: 'break-all' }}>
          {webhook.data.url}
        </Title>
        <StateBadge state={webhook.data.state} />
      </Group>
      <Text size="xs" ff="monospace" c="dimmed" style={{ wordBreak: 'break-all' }}>
        {webhook.data.prn}
      </Text>
      <WebhookActions webhook={webhook.data} />
      <EditWebhook webhook={webhook.data} />
      <Deliveries prn={prn} />
    </Stack>
  );
}

function EditWebhook({ webhook }: { webhook: Webhook }) {
  const { client } = useSession();
  const queries = useQueryClient();
  const [url, setUrl] = useState(webhook.url);
  const [description, setDescription] = useState(webhook.description ?? '');
  const [events, setEvents] = useState<string[]>(webhook.enabled_events);
  useEffect(() => {
    setUrl(webhook.url);
    setDescription(webhook.description ?? '');
    setEvents(webhook.enabled_events);
  }, [webhook]);
  const save = useMutation({
    // The boxes offer only the API's enum (WEBHOOK_EVENTS); a changed url of an enabled webhook is verified by the server first.
    mutationFn: () => patchWebhook(client, webhook.prn, { url: url.trim(), description: description.trim() || null, enabled_events: events as Webhook['enabled_events'] }),
    onSuccess: () => {
      notifySuccess('Webhook saved');
      void queries.invalidateQueries({ queryKey: webhookKeys.one(webhook.prn) });
      void queries.invalidateQueries({ queryKey: webhookKeys.list });
    },
  });
  return (
    <Paper withBorder p="md">
      <Stack gap="sm" component="form" aria-label="Edit webhook" onSubmit={(e) => { e.preventDefault(); save.mutate(); }}>
        <Title order={2} size="h4">
          Settings
        </Title>
        <TextInput label="Webhook URL" description="Changing it on an enabled webhook sends a test event to the new one first" value={url} onChange={(e) => setUrl(e.currentTarget.value)} required />
        <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
        <WebhookEventsField value={events} onChange={setEvents} />
        <ApiErrorAlert error={save.error} title="Could not save the webhook" />
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save webhook
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

function WebhookActions({ webhook }: { webhook: Webhook }) {
  const { client } = useSession();
  const queries = useQueryClient();
  const navigate = useNavigate();
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = () => {
    void queries.invalidateQueries({ queryKey: webhookKeys.one(webhook.prn) });
    void queries.invalidateQueries({ queryKey: webhookKeys.list });
    void queries.invalidateQueries({ queryKey: webhookKeys.deliveries(webhook.prn) });
  };
  const next = webhook.state === 'enabled' ? 'disabled' : 'enabled';
  const toggle = useMutation({
    mutationFn: () => setWebhookState(client, webhook.prn, next),
    onSuccess: () => {
      notifySuccess(`Webhook ${next}`);
      refresh();
    },
  });
  const roll = useMutation({
    mutationFn: () => rollWebhookSecret(client, webhook.prn),
    onSuccess: (body) => {
      setSecret(body.webhook.secret);
      notifySuccess('Secret rolled: the new one signs from now on');
      refresh();
    },
    onError: notifyFailure,
  });
  const fire = useMutation({
    mutationFn: () => testFireWebhook(client, webhook.prn),
    onSuccess: () => {
      notifySuccess('Test event sent');
      refresh();
    },
    onError: notifyFailure,
  });
  const remove = useMutation({
    mutationFn: () => deleteWebhook(client, webhook.prn),
    onSuccess: () => {
      notifySuccess('Webhook deleted');
      void queries.invalidateQueries({ queryKey: webhookKeys.list });
      void navigate({ to: '/webhooks' });
    },
    onError: notifyFailure,
  });
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <Group gap="xs">
          <Button variant="default" loading={toggle.isPending} onClick={() => toggle.mutate()}>
            {webhook.state === 'enabled' ? 'Disable' : 'Enable'}
          </Button>
          <Button variant="default" loading={fire.isPending} onClick={() => fire.mutate()}>
            Send test event
          </Button>
          <ConfirmButton question="Roll the secret? Deliveries are signed with the new one from now on; receivers must be given it." onConfirm={() => roll.mutate()} loading={roll.isPending}>
            Roll secret
          </ConfirmButton>
          <ConfirmButton question="Delete this webhook? Its pending deliveries are dropped." onConfirm={() => remove.mutate()} loading={remove.isPending}>
            Delete webhook
          </ConfirmButton>
        </Group>
        <ApiErrorAlert error={toggle.error} title={`Could not set the webhook ${next}`} />
        {secret && <SecretOnce label="The new signing secret" value={secret} onDismiss={() => setSecret(null)} />}
      </Stack>
    </Paper>
  );
}

function Deliveries({ prn }: { prn: string }) {
  const { client } = useSession();
  const queries = useQueryClient();
  const deliveries = useDeliveries(prn);
  const listKey = webhookKeys.deliveries(prn);
  const redeliver = useMutation({
    mutationFn: (eventPrn: string) => redeliverWebhookEvent(client, prn, eventPrn),
    onSuccess: (body) => {
      notifySuccess(`${body.redelivery.queued} delivery queued again`);
      void queries.invalidateQueries({ queryKey: listKey });
    },
    onError: notifyFailure,
  });
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Deliveries
      </Title>
      <ResourceTable<DeliveryAttempt>
        label="Delivery attempts"
        query={deliveries}
        listKey={listKey}
        // An attempt has no prn: its delivery and try number name it.
        rowKey={(a) => `${a.delivery_id}-${a.attempt}`}
        rowTestId="delivery-row"
        minWidth={640}
        columns={[
          { header: 'When', cell: (a) => <Time value={a.attempted_at} /> },
          { header: 'Event', cell: (a) => <Code style={{ wordBreak: 'break-all' }}>{a.event_prn.split(':').pop()}</Code> },
          { header: 'Try', cell: (a) => a.attempt },
          {
            header: 'Answer',
            testId: 'delivery-answer',
            cell: (a) => (
              <>
                {a.error ? `${a.error}${a.status_code ? ` (${a.status_code})` : ''}` : String(a.status_code)}
                {a.detail && (
                  <Text size="xs" c="dimmed">
                    {a.detail}
                  </Text>
                )}
              </>
            ),
          },
          { header: 'Latency', cell: (a) => `${a.latency_ms} ms` },
          { header: 'Next try', cell: (a) => (a.next_attempt_at ? <Time value={a.next_attempt_at} /> : '-') },
          {
            header: 'Actions',
            hiddenHeader: true,
            cell: (a) => (
              <Button size="xs" variant="default" loading={redeliver.isPending && redeliver.variables === a.event_prn} onClick={() => redeliver.mutate(a.event_prn)}>
                Redeliver
              </Button>
            ),
          },
        ]}
        empty={{ title: 'No deliveries yet', text: 'Send a test event above, or wait for a subscribed event; every attempt shows here with its answer.' }}
      />
    </Stack>
  );
}
