/**
 * CA certificates (admins only): the list, and registration by proof of possession: get a
 * verification code, make a certificate with that CN signed by the CA (openssl commands shown),
 * paste both certificates, register.
 */
import { Button, Code, CopyButton, Group, Paper, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { AdminOnly } from '../../ui/AdminOnly';
import { ApiErrorAlert } from '../../ui/ApiError';
import { base64OfPem } from '../../ui/pem';
import { ResourceTable } from '../../ui/ResourceTable';
import { notifyFailure, notifySuccess } from '../../ui/notify';
import { Time } from '../../ui/Time';
import { useCreateResource } from '../../ui/useCreateResource';
import { verificationCommands } from './openssl-commands';
import { certificateKeys, newVerificationCode, useCaCertificates, type CaCertificate } from './queries';

export function CaCertificatesPage() {
  return (
    <Stack>
      <Title order={1} size="h2">
        CA certificates
      </Title>
      <AdminOnly what="CA certificates">
        <RegisterCa />
        <CaList />
      </AdminOnly>
    </Stack>
  );
}

function RegisterCa() {
  const { client } = useSession();
  const [code, setCode] = useState<string | null>(null);
  const [ca, setCa] = useState('');
  const [verification, setVerification] = useState('');
  const [description, setDescription] = useState('');
  const getCode = useMutation({
    mutationFn: () => newVerificationCode(client),
    onSuccess: setCode,
    onError: notifyFailure,
  });
  const register = useCreateResource('/ca_certificates', certificateKeys.cas, () => 'CA certificate registered', () => {
    setCode(null);
    setCa('');
    setVerification('');
    setDescription('');
  });
  const commands = code ? verificationCommands(code) : '';
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <Title order={2} size="h4">
          Register a CA
        </Title>
        <Text size="sm">Devices whose certificates this CA issued can then connect. First prove you hold the CA's key:</Text>
        <Group>
          <Button variant="default" onClick={() => getCode.mutate()} loading={getCode.isPending}>
            {code ? 'Get a new verification code' : 'Get a verification code'}
          </Button>
        </Group>
        {code && (
          <Stack gap={4}>
            <Text size="sm">
              Verification code (valid one week, usable once): <Code data-testid="verification-code">{code}</Code>
            </Text>
            <Text size="sm">With the CA's certificate in ca.pem and its key in ca.key, run:</Text>
            <Code block data-testid="openssl-commands" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
              {commands}
            </Code>
            <Group>
              <CopyButton value={commands}>
                {({ copied, copy }) => (
                  <Button size="xs" variant="default" onClick={copy}>
                    {copied ? 'Copied' : 'Copy commands'}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </Stack>
        )}
        <Stack gap="xs" component="form" onSubmit={(e) => { e.preventDefault(); register.mutate({ certificate: base64OfPem(ca), verification_certificate: base64OfPem(verification), description: description.trim() || null }); }}>
          <Textarea label="CA certificate (PEM, contents of ca.pem)" autosize minRows={3} maxRows={8} styles={{ input: { fontFamily: 'monospace' } }} value={ca} onChange={(e) => setCa(e.currentTarget.value)} required />
          <Textarea
            label="Verification certificate (PEM, contents of verification.pem)"
            autosize
            minRows={3}
            maxRows={8}
            styles={{ input: { fontFamily: 'monospace' } }}
            value={verification}
            onChange={(e) => setVerification(e.currentTarget.value)}
            required
          />
          <TextInput label="CA description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
          <Group>
            <Button type="submit" loading={register.isPending}>
              Register CA
            </Button>
          </Group>
          <ApiErrorAlert error={register.error} title="Could not register the CA" />
        </Stack>
      </Stack>
    </Paper>
  );
}

function CaList() {
  const list = useCaCertificates();
  return (
    <ResourceTable<CaCertificate>
      label="CA certificates"
      query={list}
      listKey={certificateKeys.cas}
      rowTestId="ca-row"
      minWidth={560}
      columns={[
        { header: 'Serial', cell: (ca) => <Code style={{ wordBreak: 'break-all' }}>{ca.serial}</Code> },
        { header: 'Description', cell: (ca) => ca.description ?? '-' },
        { header: 'Valid until', cell: (ca) => <Time value={ca.not_after} /> },
      ]}
      empty={{ title: 'No CA certificates yet', text: "Register the CA that issues your devices' certificates above, so those devices can connect." }}
      remove={{
        path: '/ca_certificates/{prn}',
        question: () => 'Delete this CA certificate? Devices whose certificates chain only to it stop authenticating at once.',
        done: () => 'CA certificate deleted',
      }}
    />
  );
}
