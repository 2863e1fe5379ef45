/**
 * The guided create of a release, in the order the decisions come: bundle and cohort, position in
 * the cohort's chain, phasing, schedule, the health gate (on by default: a release failing
 * everywhere must not keep rolling); then the dry run (`POST /releases/dry_run`, which writes
 * nothing) says how many devices it would reach, and only then can it be added. Used on the
 * releases screen (any cohort) and on a cohort's page (that cohort).
 */
import { Button, Checkbox, Group, NumberInput, Paper, SegmentedControl, Select, Stack, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { DEFAULT_ROLLOUT_SETTINGS, RolloutSettingsFields, type RolloutSettings } from './RolloutControls';
import { useSession } from '../../api/session-context';
import { ApiErrorAlert } from '../../ui/ApiError';
import { LocalTimeInput, toApiTime } from '../../ui/LocalTimeInput';
import { notifySuccess } from '../../ui/notify';
import { bundleLabel, useBundles } from '../bundles/queries';
import { useCohorts } from '../products/queries';
import { chainOrder } from './chain-order';
import { DEFAULT_GATE, gateBody, HealthGateFields } from './HealthGateFields';
import { createRelease, dryRunRelease, releaseKeys, useCohortReleases, type NewRelease } from './queries';

const AT_END = 'end';

export function ReleaseForm({ cohortPrn: fixedCohort }: { cohortPrn?: string }) {
  const { client } = useSession();
  const queries = useQueryClient();
  const bundles = useBundles();
  const cohorts = useCohorts();
  const [cohort, setCohort] = useState<string | null>(fixedCohort ?? null);
  const chain = useCohortReleases(cohort ?? '');
  const [bundle, setBundle] = useState<string | null>(null);
  const [position, setPosition] = useState<string | null>(AT_END);
  const [name, setName] = useState('');
  const [version, setVersion] = useState('');
  const [required, setRequired] = useState(false);
  const [phaseMode, setPhaseMode] = useState<'numeric' | 'tags'>('numeric');
  const [phaseValue, setPhaseValue] = useState<number | string>(1);
  const [phaseTags, setPhaseTags] = useState<string[]>([]);
  const [schedule, setSchedule] = useState('');
  const [rolloutSettings, setRolloutSettings] = useState<RolloutSettings>(DEFAULT_ROLLOUT_SETTINGS);
  const [gate, setGate] = useState(DEFAULT_GATE);
  const body = (): NewRelease => ({
    // Sent as null when not picked yet, for the server's refusal to name the field.
    cohort_prn: cohort as string,
    bundle_prn: bundle as string,
    name: name.trim(),
    version: version.trim() || null,
    required,
    schedule_date: toApiTime(schedule),
    ...(phaseMode === 'numeric' ? { phase_value: Number(phaseValue) } : { phase_mode: 'tags', phase_tags: phaseTags, phase_value: null }),
    ...(position && position !== AT_END ? { next_release_prn: position } : {}),
    ...rolloutSettings,
    ...gateBody(gate),
  });
  const dryRun = useMutation({ mutationFn: (sent: ReturnType<typeof body>) => dryRunRelease(client, sent).then((result) => ({ sent: JSON.stringify(sent), result })) });
  const previewed = dryRun.data?.result.valid && dryRun.data.sent === JSON.stringify(body());
  const create = useMutation({
    mutationFn: () => createRelease(client, body()),
    onSuccess: () => {
      notifySuccess(`Release ${name} added`);
      setName('');
      setVersion('');
      dryRun.reset();
      void queries.invalidateQueries({ queryKey: releaseKeys.lists });
    },
  });
  const ordered = chainOrder(chain.data ?? []);
  return (
    <Paper withBorder p="md">
      <Stack gap="sm" component="form" aria-label="Add a release" onSubmit={(e) => { e.preventDefault(); if (previewed) create.mutate(); }}>
        <Title order={2} size="h4">
          Add a release
        </Title>
        <Step title="1. What and to whom">
          <Select label="Bundle" data={(bundles.data ?? []).map((b) => ({ value: b.prn, label: bundleLabel(b) }))} value={bundle} onChange={setBundle} required searchable w={220} />
          {!fixedCohort && <Select label="Cohort" data={(cohorts.data ?? []).map((c) => ({ value: c.prn, label: c.name }))} value={cohort} onChange={(c) => { setCohort(c); setPosition(AT_END); }} required searchable w={220} />}
          <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
          <TextInput label="Version" value={version} onChange={(e) => setVersion(e.currentTarget.value)} placeholder="1.2.0" w={120} />
        </Step>
        <Step title="2. Position in the chain">
          <Select
            label="Position"
            data={[{ value: AT_END, label: 'At the end (the latest)' }, ...ordered.map((r) => ({ value: r.prn, label: `Before ${r.name}` }))]}
            value={position}
            onChange={setPosition}
            allowDeselect={false}
            w={260}
          />
          <Checkbox label="Required" checked={required} onChange={(e) => setRequired(e.currentTarget.checked)} />
        </Step>
        <Step title="3. Phasing (only the latest release may be phased)">
          <SegmentedControl aria-label="Phase mode" value={phaseMode} onChange={(v) => setPhaseMode(v as 'numeric' | 'tags')} data={[{ value: 'numeric', label: 'Share or count' }, { value: 'tags', label: 'By tags' }]} />
          {phaseMode === 'numeric' ? (
            <NumberInput label="Phase value" description="0 to 1: share; 2 or more: devices; 1 = everyone" value={phaseValue} onChange={setPhaseValue} min={0} step={0.05} decimalScale={3} w={200} />
          ) : (
            <TagsInput label="Phase tags" description="Devices with one of these tags" value={phaseTags} onChange={setPhaseTags} w={260} />
          )}
        </Step>
        <Step title="4. Schedule">
          <LocalTimeInput label="Not before" value={schedule} onChange={setSchedule} />
        </Step>
        <Step title="5. Health gate">
          <HealthGateFields value={gate} onChange={setGate} />
        </Step>
        <Step title="6. Rollout controls">
          <RolloutSettingsFields value={rolloutSettings} onChange={setRolloutSettings} />
        </Step>
        <Group>
          <Button variant="default" loading={dryRun.isPending} onClick={() => dryRun.mutate(body())}>
            Preview (dry run)
          </Button>
          <Button type="submit" loading={create.isPending} disabled={!previewed}>
            Add release
          </Button>
        </Group>
        {!previewed && <Text size="sm" c="dimmed">Preview the release to see whom it reaches; then it can be added.</Text>}
        <ApiErrorAlert error={dryRun.error} title="Could not preview the release" />
        {dryRun.data && (
          <Text size="sm" data-testid="dry-run">
            {dryRun.data.result.valid
              ? `Would reach ${dryRun.data.result.would_claim} of ${dryRun.data.result.eligible} eligible devices (${dryRun.data.result.cohort_devices} in the cohort).`
              : `Would be refused: ${dryRun.data.result.errors.map((e) => `${e.code} ${String(e.context.field ?? e.context.reason ?? '')}`.trim()).join(', ')}.`}
          </Text>
        )}
        <ApiErrorAlert error={create.error} title="Could not add the release" />
      </Stack>
    </Paper>
  );
}

function Step({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Stack gap={4}>
      <Text fw={600} size="sm">
        {title}
      </Text>
      <Group align="flex-end" wrap="wrap">
        {children}
      </Group>
    </Stack>
  );
}
