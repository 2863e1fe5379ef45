/**
 * A binary's signatures: the list (delete), a signature pasted as hex, or one made here with a
 * private key file the user picks. The key file is read and used inside this page only (WebCrypto
 * Ed25519, through the SDK); what is sent is the signature. The signing key is the registered one
 * whose public key matches the file's.
 */
import { Alert, Button, Code, FileInput, Group, Paper, Select, Stack, TextInput, Title } from '@mantine/core';
import { signerFromPrivateKeyPem } from '@canopy/sdk/browser';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { ApiErrorAlert } from '../../ui/ApiError';
import { notifySuccess } from '../../ui/notify';
import { ResourceTable } from '../../ui/ResourceTable';
import type { Binary } from '../artifacts/queries';
import { useSigningKeys } from '../signing-keys/queries';
import { addSignature, binaryKeys, useSignatures, useWebCryptoEd25519, type BinarySignature } from './queries';

const SIGNABLE = new Set(['signable', 'signed']);

export function BinarySignatures({ binary }: { binary: Binary }) {
  const { canWrite } = useSession();
  const keys = useSigningKeys();
  const listKey = binaryKeys.signatures(binary.prn);
  const signatures = useSignatures(binary);
  const keyName = (prn: string) => keys.data?.find((k) => k.prn === prn)?.name ?? prn;
  return (
    <Stack gap="xs">
      <Title order={2} size="h3">
        Signatures
      </Title>
      <ResourceTable<BinarySignature>
        label="Signatures"
        query={signatures}
        listKey={listKey}
        rowTestId="signature-row"
        minWidth={420}
        columns={[
          { header: 'Signing key', cell: (s) => keyName(s.signing_key_prn) },
          { header: 'Signature', cell: (s) => <Code title={s.signature}>{s.signature.slice(0, 24)}…</Code> },
        ]}
        empty={{ title: 'No signatures yet', text: 'Devices that require signatures refuse an unsigned binary. Sign it below.' }}
        remove={{ path: '/binary_signatures/{prn}', question: () => 'Delete this signature? Without any signature the binary is signable again.', done: () => 'Signature deleted' }}
      />
      {canWrite && SIGNABLE.has(binary.state) && <AddSignature binary={binary} />}
    </Stack>
  );
}

function AddSignature({ binary }: { binary: Binary }) {
  const { client } = useSession();
  const queries = useQueryClient();
  const keys = useSigningKeys();
  const [signingKeyPrn, setSigningKeyPrn] = useState<string | null>(null);
  const [signature, setSignature] = useState('');
  const [keyFile, setKeyFile] = useState<File | null>(null);
  const ed25519 = useWebCryptoEd25519();
  const attach = useMutation({
    mutationFn: (body: { signing_key_prn: string; signature: string }) => addSignature(client, { binary_prn: binary.prn, ...body }),
    onSuccess: () => {
      notifySuccess('Signature added');
      setSignature('');
      setKeyFile(null);
      void queries.invalidateQueries({ queryKey: binaryKeys.signatures(binary.prn) });
      void queries.invalidateQueries({ queryKey: binaryKeys.one(binary.prn) });
    },
  });
  // Signs in this page: the key file's bytes never leave it; the key is found by its public half.
  const signHere = useMutation({
    mutationFn: async (file: File) => {
      const signer = await signerFromPrivateKeyPem(await file.text());
      const key = keys.data?.find((k) => k.value === signer.publicKeyValue);
      if (!key) throw new Error('no registered signing key matches this private key: register its public key on the Signing keys screen first');
      attach.mutate({ signing_key_prn: key.prn, signature: await signer.signHash(binary.hash) });
    },
  });
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <Title order={3} size="h4">
          Sign in the browser
        </Title>
        {ed25519.data === false ? (
          <Alert color="yellow">This browser cannot make Ed25519 signatures. Sign with the CLI (canopy binary-signatures create) and paste the signature below.</Alert>
        ) : (
          <Stack gap="xs" component="form" aria-label="Sign in the browser" onSubmit={(e) => { e.preventDefault(); if (keyFile) signHere.mutate(keyFile); }}>
            <FileInput label="Private key file" description="An Ed25519 PKCS#8 PEM (openssl genpkey -algorithm ed25519). It is read in this page and never sent." value={keyFile} onChange={setKeyFile} />
            <Group>
              <Button type="submit" disabled={!keyFile} loading={signHere.isPending || attach.isPending}>
                Sign
              </Button>
            </Group>
            {signHere.error && (
              <Alert color="red" role="alert" title="Could not sign">
                {signHere.error.message}
              </Alert>
            )}
          </Stack>
        )}
        <Title order={3} size="h4">
          Or paste a signature
        </Title>
        <Stack gap="xs" component="form" aria-label="Paste a signature" onSubmit={(e) => { e.preventDefault(); if (signingKeyPrn) attach.mutate({ signing_key_prn: signingKeyPrn, signature: signature.trim() }); }}>
          <Select label="Signing key" data={(keys.data ?? []).map((k) => ({ value: k.prn, label: k.name }))} value={signingKeyPrn} onChange={setSigningKeyPrn} required />
          <TextInput label="Signature (128 hex characters)" value={signature} onChange={(e) => setSignature(e.currentTarget.value)} required styles={{ input: { fontFamily: 'monospace' } }} />
          <Group>
            <Button type="submit">Add signature</Button>
          </Group>
        </Stack>
        <ApiErrorAlert error={attach.error} title="Could not add the signature" />
      </Stack>
    </Paper>
  );
}
