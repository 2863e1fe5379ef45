/**
 * The trust posture of an organization on TUF (GET /tuf/posture): how many devices trust each
 * root version, and the devices still on an older root than the current one, longest silent
 * first. A device's trusted root is what it last asked the server for (`{n}.root.json`).
 */
import { Paper, Stack, Table, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { PrnLink } from '../../ui/PrnLink';
import { Time } from '../../ui/Time';
import { useTrustPosture, type TrustPosture } from './queries';

export function TrustPostureSection() {
  const posture = useTrustPosture();
  if (!posture.data) return null;
  return <TrustPostureView posture={posture.data} />;
}

/** `device`: how a stale device is shown (a link to its page; component tests render it without a router). */
export function TrustPostureView({ posture, device = (prn) => <PrnLink prn={prn} /> }: { posture: TrustPosture; device?: (prn: string) => ReactNode }) {
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <Title order={2} size="h4">
          Trust posture (TUF)
        </Title>
        {posture.current_root_version === null ? (
          <Text size="sm">This organization has no TUF root yet: its devices check binary signatures only. The guide Trust and signing explains how to move a fleet to TUF.</Text>
        ) : (
          <>
            <Text size="sm" data-testid="posture-summary">
              Current root: version {posture.current_root_version}.{' '}
              {posture.stale_devices === 0 ? 'Every device that fetched metadata trusts it.' : `${posture.stale_devices} ${posture.stale_devices === 1 ? 'device trusts' : 'devices trust'} an older root.`}
            </Text>
            <Table withTableBorder aria-label="Devices per root version">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Root version</Table.Th>
                  <Table.Th>Devices</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {posture.root_versions.map((row) => (
                  <Table.Tr key={row.version} data-testid="posture-version-row">
                    <Table.Td>
                      {row.version}
                      {row.version === posture.current_root_version ? ' (current)' : ''}
                    </Table.Td>
                    <Table.Td>{row.devices}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            {posture.stale.length > 0 && (
              <Table withTableBorder aria-label="Devices on an older root">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Device</Table.Th>
                    <Table.Th>Trusted root</Table.Th>
                    <Table.Th>Last fetched metadata</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {posture.stale.map((row) => (
                    <Table.Tr key={row.device_prn} data-testid="posture-stale-row">
                      <Table.Td>{device(row.device_prn)}</Table.Td>
                      <Table.Td>{row.root_version}</Table.Td>
                      <Table.Td>
                        <Time value={row.reported_at} />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
          </>
        )}
      </Stack>
    </Paper>
  );
}
