/** Actions on the selected devices: each is a PATCH per device with the user's key (so each is in the event log). */
import { Button, Group, Select, TagsInput, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { deviceKeys, patchDevice, type Device } from '../devices/queries';
import { notifyFailure, notifySuccess } from '../../ui/notify';
import type { NamedOption } from './FilterBuilder';
import { countOf } from '../../ui/count';

type Change = (device: Device) => Parameters<typeof patchDevice>[2];

export function BulkActions({ selected, cohorts, onDone }: { selected: Device[]; cohorts: NamedOption[]; onDone(): void }) {
  const { client } = useSession();
  const queries = useQueryClient();
  const [cohort, setCohort] = useState<string | null>(null);
  const [tags, setTags] = useState<string[]>([]);
  const apply = useMutation({
    mutationFn: async ({ change }: { change: Change; label: string }) => {
      // Four at a time: enough to be quick, few enough not to crowd the server.
      const queue = [...selected];
      const worker = async () => {
        for (let device = queue.shift(); device; device = queue.shift()) {
          await patchDevice(client, device.prn, change(device));
        }
      };
      await Promise.all(Array.from({ length: 4 }, worker));
    },
    onSuccess: (_, { label }) => {
      notifySuccess(`${label}: ${countOf(selected.length, 'device')}`);
      onDone();
    },
    onError: notifyFailure,
    onSettled: () => queries.invalidateQueries({ queryKey: deviceKeys.lists }),
  });
  const run = (label: string, change: Change) => apply.mutate({ label, change });
  return (
    <Group gap="xs" wrap="wrap" aria-label="Bulk actions" role="group">
      <Text size="sm" fw={500}>
        {selected.length} selected
      </Text>
      <Button size="xs" color="orange" loading={apply.isPending} onClick={() => run('Quarantined', () => ({ quarantined: true }))}>
        Quarantine
      </Button>
      <Button size="xs" variant="default" loading={apply.isPending} onClick={() => run('Released from quarantine', () => ({ quarantined: false }))}>
        Release quarantine
      </Button>
      <Group gap={4}>
        <Select aria-label="Cohort to move to" placeholder="Cohort" data={cohorts} value={cohort} onChange={setCohort} size="xs" w={160} />
        <Button size="xs" variant="default" disabled={!cohort} onClick={() => run('Moved to cohort', () => ({ cohort_prn: cohort }))}>
          Move
        </Button>
      </Group>
      <Group gap={4}>
        <TagsInput aria-label="Tags to add" placeholder="Tags" value={tags} onChange={setTags} size="xs" w={180} />
        <Button size="xs" variant="default" disabled={tags.length === 0} onClick={() => run('Tags added', (d) => ({ tags: [...new Set([...(d.tags ?? []), ...tags])] }))}>
          Add tags
        </Button>
      </Group>
    </Group>
  );
}
