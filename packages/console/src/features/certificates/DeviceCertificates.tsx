/** A device's certificates on its page: list, register a pasted PEM, delete. */
import { Code, Paper, Stack, Textarea, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { listEvery } from '../../api/lists';
import { useSession } from '../../api/session-context';
import { CreateForm } from '../../ui/CreateForm';
import { base64OfPem } from '../../ui/pem';
import { ResourceTable } from '../../ui/ResourceTable';
import { Time } from '../../ui/Time';
import { useCreateResource } from '../../ui/useCreateResource';

interface DeviceCertificate {
  prn: string;
  serial: string;
  fingerprint: string;
  not_before: string;
  not_after: string;
}

export function DeviceCertificates({ devicePrn }: { devicePrn: string }) {
  const { client, canWrite } = useSession();
  const listKey = ['device-certificates', devicePrn];
  const list = useQuery({ queryKey: listKey, queryFn: () => listEvery<DeviceCertificate>(client, '/device_certificates', 'device_certificates', { device_prn: devicePrn, order: 'asc' }) });
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <Title order={2} size="h4">
          Certificates
        </Title>
        <ResourceTable<DeviceCertificate>
          label="Device certificates"
          query={list}
          listKey={listKey}
          rowTestId="device-certificate-row"
          minWidth={480}
          loadingRows={2}
          columns={[
            { header: 'Fingerprint (SHA-256)', cell: (cert) => <Code title={cert.fingerprint}>{cert.fingerprint.slice(0, 16)}…</Code> },
            { header: 'Valid until', cell: (cert) => <Time value={cert.not_after} /> },
          ]}
          empty={{
            title: 'No certificates',
            text: 'The device authenticates with a certificate its CA issued. Paste one below to register it, or let just-in-time provisioning register it on first connection.',
          }}
          remove={{
            path: '/device_certificates/{prn}',
            question: () => 'Delete this certificate? It stops authenticating new connections at once.',
            done: () => 'Device certificate deleted',
          }}
        />
        {canWrite && <RegisterCertificate devicePrn={devicePrn} listKey={listKey} />}
      </Stack>
    </Paper>
  );
}

function RegisterCertificate({ devicePrn, listKey }: { devicePrn: string; listKey: string[] }) {
  const [pem, setPem] = useState('');
  const add = useCreateResource('/device_certificates', listKey, () => 'Device certificate registered', () => setPem(''));
  return (
    <CreateForm title="Register a certificate" submitLabel="Register certificate" pending={add.isPending} error={add.error} onSubmit={() => add.mutate({ device_prn: devicePrn, certificate: base64OfPem(pem) })}>
      <Textarea label="Device certificate (PEM)" autosize minRows={2} maxRows={8} styles={{ input: { fontFamily: 'monospace' } }} value={pem} onChange={(e) => setPem(e.currentTarget.value)} required />
    </CreateForm>
  );
}
