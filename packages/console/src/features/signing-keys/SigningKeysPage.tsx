/** Signing keys: the Ed25519 public keys binary signatures are checked against (list, create from a pasted key, delete), and the organization's TUF trust posture. */
import { Button, Code, Group, Paper, Stack, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { ApiErrorAlert } from '../../ui/ApiError';
import { notifySuccess } from '../../ui/notify';
import { Time } from '../../ui/Time';
import { ResourceTable } from '../../ui/ResourceTable';
import { createSigningKey, signingKeyKeys, useSigningKeys, type SigningKey } from './queries';
import { TrustPostureSection } from './TrustPosture';

export function SigningKeysPage() {
  const { canWrite } = useSession();
  return (
    <Stack>
      <Title order={1} size="h2">
        Signing keys
      </Title>
      {canWrite && <CreateSigningKey />}
      <SigningKeyList />
      <TrustPostureSection />
    </Stack>
  );
}

function CreateSigningKey() {
  const { client } = useSession();
  const queries = useQueryClient();
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const create = useMutation({
    mutationFn: () => createSigningKey(client, { name: name.trim(), value: value.trim() }),
    onSuccess: () => {
      notifySuccess(`Signing key ${name} created`);
      setName('');
      setValue('');
      void queries.invalidateQueries({ queryKey: signingKeyKeys.list });
    },
  });
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs" component="form" onSubmit={(e) => { e.preventDefault(); create.mutate(); }}>
        <Title order={2} size="h4">
          New signing key
        </Title>
        <TextInput label="Key name" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
        <Textarea
          label="Public key"
          description="Ed25519: base64 of the raw 32 bytes, or PEM (openssl pkey -in private.pem -pubout)"
          autosize
          minRows={2}
          styles={{ input: { fontFamily: 'monospace' } }}
          value={value}
          onChange={(e) => setValue(e.currentTarget.value)}
          required
        />
        <Group>
          <Button type="submit" loading={create.isPending}>
            Create signing key
          </Button>
        </Group>
        <ApiErrorAlert error={create.error} title="Could not create the signing key" />
      </Stack>
    </Paper>
  );
}

function SigningKeyList() {
  const keys = useSigningKeys();
  return (
    <ResourceTable<SigningKey>
      label="Signing keys"
      query={keys}
      listKey={signingKeyKeys.list}
      rowTestId="signing-key-row"
      columns={[
        { header: 'Name', cell: (key) => key.name },
        { header: 'Key id (SHA-256)', cell: (key) => <Code title={key.keyid}>{key.keyid.slice(0, 16)}…</Code> },
        { header: 'Created', cell: (key) => <Time value={key.inserted_at} /> },
      ]}
      empty={{ title: 'No signing keys yet', text: 'Binaries can carry Ed25519 signatures that devices check. Paste the public key of your signing key pair above to register it.' }}
      remove={{ path: '/signing_keys/{prn}', question: (key) => `Delete the signing key ${key.name}? Signatures made with it are no longer checked against it.`, done: (key) => `Signing key ${key.name} deleted` }}
    />
  );
}
