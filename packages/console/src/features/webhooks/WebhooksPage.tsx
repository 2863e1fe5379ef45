/** Webhooks (admins only): the list, and a form to create one (url, description, events). */
import { Badge, Box, Checkbox, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { AdminOnly } from '../../ui/AdminOnly';
import { AnchorLink } from '../../ui/AnchorLink';
import { CreateForm } from '../../ui/CreateForm';
import { ResourceTable } from '../../ui/ResourceTable';
import { SecretOnce } from '../../ui/SecretOnce';
import { Time } from '../../ui/Time';
import { useCreateResource } from '../../ui/useCreateResource';
import { WebhookEventsField } from './WebhookEventsField';
import { useWebhooks, webhookKeys, WEBHOOK_EVENTS, type Webhook, type WebhookBody } from './queries';

export function WebhooksPage() {
  return (
    <Stack>
      <Title order={1} size="h2">
        Webhooks
      </Title>
      <AdminOnly what="webhooks">
        <CreateWebhook />
        <WebhookList />
      </AdminOnly>
    </Stack>
  );
}

function CreateWebhook() {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  // The boxes offer only WEBHOOK_EVENTS' names (the API's enum).
  const [events, setEvents] = useState<string[]>(['device.release_changed']);
  const [enabled, setEnabled] = useState(true);
  const [secret, setSecret] = useState<string | null>(null);
  const create = useCreateResource('/webhooks', webhookKeys.list, (body) => `Webhook for ${body.url} created`, (answer) => {
    setSecret(answer.webhook.secret);
    setUrl('');
    setDescription('');
  });
  return (
    <CreateForm
      title="New webhook"
      submitLabel="Create webhook"
      pending={create.isPending}
      error={create.error}
      onSubmit={() => create.mutate({ url: url.trim(), description: description.trim() || null, enabled_events: events as WebhookBody['enabled_events'], state: enabled ? 'enabled' : 'disabled' })}
      outcome={secret && <SecretOnce label="The webhook's signing secret" value={secret} onDismiss={() => setSecret(null)} />}
    >
      <TextInput label="Webhook URL" description="https:// and publicly reachable; an enabled webhook must answer a test event with 200 first" value={url} onChange={(e) => setUrl(e.currentTarget.value)} required />
      <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
      <WebhookEventsField value={events} onChange={setEvents} />
      <Checkbox label="Enabled (sends a test event now)" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
    </CreateForm>
  );
}

function WebhookList() {
  const webhooks = useWebhooks();
  return (
    <ResourceTable<Webhook>
      label="Webhooks"
      query={webhooks}
      listKey={webhookKeys.list}
      rowTestId="webhook-row"
      minWidth={480}
      columns={[
        {
          header: 'URL',
          cell: (hook) => (
            <Box style={{ wordBreak: 'break-all' }}>
              <AnchorLink to="/webhooks/$prn" params={{ prn: hook.prn }}>
                {hook.url}
              </AnchorLink>
              {hook.description && (
                <Text size="xs" c="dimmed">
                  {hook.description}
                </Text>
              )}
            </Box>
          ),
        },
        { header: 'State', cell: (hook) => <StateBadge state={hook.state} /> },
        { header: 'Events', cell: (hook) => <Text size="sm">{hook.enabled_events.join(', ')}</Text> },
        { header: 'Created', cell: (hook) => <Time value={hook.inserted_at} /> },
      ]}
      empty={{ title: 'No webhooks yet', text: 'A webhook POSTs signed events (such as a device changing release) to your URL. Create one above; a test event checks the URL first.' }}
    />
  );
}

export function StateBadge({ state }: { state: Webhook['state'] }) {
  return (
    <Badge color={state === 'enabled' ? 'green' : 'gray'} data-testid="webhook-state">
      {state}
    </Badge>
  );
}
