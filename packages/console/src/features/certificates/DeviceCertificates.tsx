/** A device's certificates on its page: list, register a pasted PEM, delete. */
import { Code, Paper, Stack, Textarea, Title } from '@mantine/core';
import type { QueryKey } from '@tanstack/react-query';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { CreateForm } from '../../ui/CreateForm';
import { base64OfPem } from '../../ui/pem';
import { ResourceTable } from '../../ui/ResourceTable';
import { Time } from '../../ui/Time';
import { useCreateResource } from '../../ui/useCreateResource';
import { certificateKeys, useDeviceCertificates, type DeviceCertificate } from './queries';

export function DeviceCertificates({ devicePrn }: { devicePrn: string }) {
  const { canWrite } = useSession();
  const listKey = certificateKeys.ofDevice(devicePrn);
  const list = useDeviceCertificates(devicePrn);
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

function RegisterCertificate({ devicePrn, listKey }: { devicePrn: string; listKey: QueryKey }) {
  const [pem, setPem] = useState('');
  const add = useCreateResource('/device_certificates', listKey, () => 'Device certificate registered', () => setPem(''));
  return (
    <CreateForm title="Register a certificate" submitLabel="Register certificate" pending={add.isPending} error={add.error} onSubmit={() => add.mutate({ device_prn: devicePrn, certificate: base64OfPem(pem) })}>
      <Textarea label="Device certificate (PEM)" autosize minRows={2} maxRows={8} styles={{ input: { fontFamily: 'monospace' } }} value={pem} onChange={(e) => setPem(e.currentTarget.value)} required />
    </CreateForm>
  );
}
