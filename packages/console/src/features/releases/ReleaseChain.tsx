/**
 * A cohort's release chain drawn as a chain: each release a link, oldest to newest, with its
 * phase, schedule, required and disabled flags and how many devices claimed a phase slot. The
 * phase is edited in place (PATCH phase_value) by users who may write.
 */
import { Badge, Box, Button, Group, NumberInput, Paper, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { Release } from './queries';
import { Time } from '../../ui/Time';
import { chainOrder, describePhase } from './chain-order';
import { countOf } from '../../ui/count';

interface Props {
  releases: Release[];
  editable: boolean;
  onSavePhase?(release: Release, phaseValue: number): void;
  saving?: string | null;
}

export function ReleaseChain({ releases, editable, onSavePhase, saving }: Props) {
  const ordered = chainOrder(releases);
  return (
    <Box component="ol" aria-label="Release chain, oldest first" p={0} m={0} style={{ listStyle: 'none', display: 'flex', flexWrap: 'wrap', gap: 8, alignItems: 'stretch' }}>
      {ordered.map((release, index) => (
        <Box component="li" key={release.prn} style={{ display: 'flex', alignItems: 'center', gap: 8 }} data-testid="chain-link">
          {index > 0 && (
            <Text aria-hidden="true" c="dimmed" fz="xl">
              →
            </Text>
          )}
          <ChainLink release={release} editable={editable} onSavePhase={onSavePhase} saving={saving === release.prn} />
        </Box>
      ))}
    </Box>
  );
}

function ChainLink({ release, editable, onSavePhase, saving }: { release: Release; editable: boolean; onSavePhase?: Props['onSavePhase']; saving: boolean }) {
  const [value, setValue] = useState<number | string>(release.phase_value ?? 1);
  const changed = Number(value) !== (release.phase_value ?? 1);
  return (
    // A disabled release is set apart by a dashed border on grey, not by fading it (faded text fails contrast).
    <Paper withBorder p="sm" w={230} bg={release.disabled ? 'gray.1' : undefined} style={release.disabled ? { borderStyle: 'dashed' } : undefined} aria-label={`Release ${release.name}`} component="section">
      <Stack gap={4}>
        <Group justify="space-between" gap={4}>
          <Text fw={600} truncate>
            {release.name}
          </Text>
          {release.version && <Badge>{release.version}</Badge>}
        </Group>
        <Group gap={4}>
          {release.required && <Badge color="violet" size="xs">required</Badge>}
          {release.disabled && <Badge color="red" size="xs">disabled</Badge>}
          {!release.schedule_complete && <Badge color="yellow" size="xs">scheduled</Badge>}
        </Group>
        <Text size="xs" data-testid="chain-phase">
          Phase: {describePhase(release)}
        </Text>
        {release.phase_mode === 'numeric' && release.phase_value !== null && release.phase_value !== 1 && (
          <Text size="xs">{countOf(release.phase_claim_count, 'device')} claimed a slot</Text>
        )}
        {release.schedule_date && (
          <Text size="xs">
            From <Time value={release.schedule_date} />
          </Text>
        )}
        {editable && release.phase_mode === 'numeric' && onSavePhase && (
          <Group gap={4} align="flex-end" component="form" onSubmit={(e) => { e.preventDefault(); onSavePhase(release, Number(value)); }}>
            <NumberInput size="xs" label="Phase value" description="0..1 share, or a device count" value={value} onChange={setValue} min={0} step={0.05} decimalScale={3} w={120} />
            <Button size="xs" type="submit" disabled={!changed} loading={saving}>
              Save
            </Button>
          </Group>
        )}
      </Stack>
    </Paper>
  );
}
