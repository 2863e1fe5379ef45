/** CA and device certificates through the SDK's typed client. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { answerOf, listEvery } from '../../api/lists';
import type { ListItem } from '../../api/paths';
import { useSession } from '../../api/session-context';

export type CaCertificate = ListItem<'/ca_certificates'>;
export type DeviceCertificate = ListItem<'/device_certificates'>;

export const certificateKeys = {
  cas: ['ca-certificates'] as const,
  ofDevice: (devicePrn: string) => ['device-certificates', devicePrn] as const,
};

export const caCertificatesQuery = (client: CanopyClient) => queryOptions({ queryKey: certificateKeys.cas, queryFn: () => listEvery(client, '/ca_certificates', 'ca_certificates', { order: 'asc' }) });

export const deviceCertificatesQuery = (client: CanopyClient, devicePrn: string) =>
  queryOptions({ queryKey: certificateKeys.ofDevice(devicePrn), queryFn: () => listEvery(client, '/device_certificates', 'device_certificates', { device_prn: devicePrn, order: 'asc' }) });

export function useCaCertificates() {
  const { client } = useSession();
  return useQuery(caCertificatesQuery(client));
}

export function useDeviceCertificates(devicePrn: string) {
  const { client } = useSession();
  return useQuery(deviceCertificatesQuery(client, devicePrn));
}

/** A one-time code to put in a verification certificate (proof of the CA's private key). */
export const newVerificationCode = (client: CanopyClient) => answerOf(client.api.POST('/ca_certificates/verification_codes')).then((b) => b.verification_code);
