/** API keys (admins only): list, create (name, role; the key is shown once), revoke. */
import { Badge, Code, SimpleGrid, Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import type { Role } from '../../api/session';
import { AdminOnly } from '../../ui/AdminOnly';
import { CreateForm } from '../../ui/CreateForm';
import { ResourceTable } from '../../ui/ResourceTable';
import { SecretOnce } from '../../ui/SecretOnce';
import { Time } from '../../ui/Time';
import { useCreateResource } from '../../ui/useCreateResource';
import { accountKeys, useApiKeys, type ApiKey } from './queries';
import { RoleSelect } from './RoleSelect';

export function ApiKeysPage() {
  return (
    <Stack>
      <Title order={1} size="h2">
        API keys
      </Title>
      <AdminOnly what="API keys">
        <CreateApiKey />
        <ApiKeyList />
      </AdminOnly>
    </Stack>
  );
}

function CreateApiKey() {
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('read');
  const [key, setKey] = useState<string | null>(null);
  const create = useCreateResource('/api_keys', accountKeys.apiKeys, (body) => `API key ${body.name} created`, (answer) => {
    setKey(answer.api_key.key ?? null);
    setName('');
  });
  return (
    <CreateForm
      title="New API key"
      submitLabel="Create API key"
      pending={create.isPending}
      error={create.error}
      onSubmit={() => create.mutate({ name: name.trim(), role })}
      outcome={key && <SecretOnce label="The new API key" value={key} onDismiss={() => setKey(null)} />}
    >
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label="Key name" description="What uses it, e.g. ci pipeline" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
        <RoleSelect value={role} onChange={setRole} />
      </SimpleGrid>
    </CreateForm>
  );
}

function ApiKeyList() {
  const keys = useApiKeys();
  return (
    <ResourceTable<ApiKey>
      label="API keys"
      query={keys}
      listKey={accountKeys.apiKeys}
      rowTestId="api-key-row"
      minWidth={560}
      columns={[
        { header: 'Name', cell: (k) => k.name },
        { header: 'Starts with', cell: (k) => <Code>{k.token_prefix}…</Code> },
        { header: 'Role', cell: (k) => <Badge>{k.role}</Badge> },
        { header: 'Created', cell: (k) => <Time value={k.inserted_at} /> },
      ]}
      empty={{ title: 'No API keys yet', text: 'Create a key above for a script or a CI pipeline; give it the smallest role it needs.' }}
      remove={{
        path: '/api_keys/{prn}',
        verb: 'Revoke',
        question: (k) => `Revoke the key ${k.name}? It stops working at once.`,
        done: (k) => `API key ${k.name} revoked`,
        // DELETE revokes: the key stays listed with the time it stopped working.
        instead: (k) =>
          k.revoked_at && (
            <>
              Revoked <Time value={k.revoked_at} />
            </>
          ),
        testId: 'api-key-state',
      }}
    />
  );
}
