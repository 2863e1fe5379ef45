/** A release's progress: its cohort split into buckets (rollout-summary.ts), as a bar and a table with shares. */
import { Box, Group, Paper, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { countOf } from '../../ui/count';
import type { Rollout } from './queries';
import { capText } from './RolloutProgress';
import { statusLabel, summarizeRollout, type BucketKey } from './rollout-summary';

export const BUCKET_COLORS: Record<BucketKey, string> = { on_it: 'teal', in_progress: 'blue', failed: 'red', waiting: 'yellow', not_offered: 'gray' };

export function RolloutBreakdown({ rollout, onShow }: { rollout: Rollout; onShow(bucket: BucketKey): void }) {
  const { total, buckets } = summarizeRollout(rollout);
  const onIt = buckets[0];
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          Progress
        </Title>
        <Text data-testid="rollout-headline">
          {onIt.count} of {countOf(total, 'device')} on it ({onIt.percent} %)
          {rollout.claimed !== null && rollout.claimed !== undefined && ` · ${countOf(rollout.claimed, 'device')} claimed a phase slot`}
          {rollout.max_concurrent !== null && rollout.max_concurrent !== undefined && ` · ${capText(rollout)}`}
        </Text>
        <Progress.Root size="lg" aria-hidden>
          {buckets.filter((b) => b.count > 0).map((b) => (
            <Progress.Section key={b.key} value={(b.count / Math.max(total, 1)) * 100} color={BUCKET_COLORS[b.key]} />
          ))}
        </Progress.Root>
        <Box style={{ overflowX: 'auto' }} tabIndex={0} role="region" aria-label="Devices in each state, scrollable">
          <Table aria-label="Devices in each state" data-testid="rollout-buckets" miw={420}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>State</Table.Th>
                <Table.Th ta="right">Devices</Table.Th>
                <Table.Th ta="right">Share</Table.Th>
                <Table.Th>Reported as</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {buckets.map((b) => (
                <Table.Tr key={b.key} data-testid={`bucket-${b.key}`}>
                  <Table.Td>
                    <Group gap={6} wrap="nowrap">
                      <Box w={10} h={10} bg={`${BUCKET_COLORS[b.key]}.6`} style={{ borderRadius: 2 }} aria-hidden />
                      {b.statuses.length > 0 ? (
                        <Text component="button" type="button" size="sm" td="underline" c="inherit" bg="none" bd="none" p={0} style={{ cursor: 'pointer' }} onClick={() => onShow(b.key)}>
                          {b.label}
                        </Text>
                      ) : (
                        <Text size="sm">{b.label}</Text>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td ta="right">{b.count}</Table.Td>
                  <Table.Td ta="right">{b.percent} %</Table.Td>
                  <Table.Td>{b.statuses.map((s) => `${s.label} ${s.count}`).join(', ')}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Box>
      </Stack>
    </Paper>
  );
}
