/**
 * A binary's deltas (docs: delta updates): per base binary, whether the server made a delta to
 * this one, its state and its size beside the full binary's. Devices running the base download
 * the delta instead of the binary once it is `ready`.
 */
import { Code, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { deltasQuery } from './queries';
import type { AnswerOf } from '../../api/paths';
import { useSession } from '../../api/session-context';
import { ApiErrorAlert } from '../../ui/ApiError';
import { PrnLink } from '../../ui/PrnLink';
import { LoadingRows } from '../../ui/States';
import { formatBytes } from '../artifacts/ArtifactVersionPage';

export type BinaryDelta = AnswerOf<'/binaries/{prn}/deltas'>['binary_deltas'][number];

/** "1.0% of the full binary" for a made delta; what its state means otherwise. */
export function deltaSizeText(delta: Pick<BinaryDelta, 'state' | 'size' | 'target_size' | 'error'>): string {
  if (delta.size === null) return delta.state === 'failed' ? `not made: ${delta.error ?? 'failed'}` : 'being made';
  const share = `${formatBytes(delta.size)} (${((100 * delta.size) / Math.max(1, delta.target_size)).toFixed(1)}% of ${formatBytes(delta.target_size)})`;
  return delta.state === 'not_smaller' ? `${share}: not smaller, not offered` : share;
}

export function DeltaTable({ deltas, base = (prn) => <PrnLink prn={prn} /> }: { deltas: BinaryDelta[]; base?: (prn: string) => ReactNode }) {
  if (deltas.length === 0) return <Text size="sm">No deltas: none of this binary's cohorts released an earlier version of its artifact for this target.</Text>;
  return (
    <Table striped withTableBorder>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>From (base)</Table.Th>
          <Table.Th>State</Table.Th>
          <Table.Th>Size</Table.Th>
          <Table.Th>SHA-256</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {deltas.map((delta) => (
          <Table.Tr key={delta.base_binary_prn} data-testid="delta-row">
            <Table.Td>{base(delta.base_binary_prn)}</Table.Td>
            <Table.Td>{delta.state}</Table.Td>
            <Table.Td>{deltaSizeText(delta)}</Table.Td>
            <Table.Td>{delta.hash ? <Code title={delta.hash}>{delta.hash.slice(0, 16)}…</Code> : '-'}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

export function BinaryDeltas({ prn }: { prn: string }) {
  const { client } = useSession();
  const deltas = useQuery(deltasQuery(client, prn));
  return (
    <Stack gap="xs">
      <Title order={2} size="h3">
        Deltas
      </Title>
      {deltas.error ? <ApiErrorAlert error={deltas.error} title="Could not load the deltas" /> : deltas.isPending ? <LoadingRows label="Loading deltas" /> : <DeltaTable deltas={deltas.data} />}
    </Stack>
  );
}
