/** Releases of every cohort (or one, `?cohort=` in the URL), halted ones first, and the guided create. */
import { Badge, Group, Select, Stack, Title } from '@mantine/core';
import { useSession } from '../../api/session-context';
import type { Release } from './queries';
import { AnchorLink } from '../../ui/AnchorLink';
import { ResourceTable } from '../../ui/ResourceTable';
import { Time } from '../../ui/Time';
import { bundleLabel, useBundles } from '../bundles/queries';
import { namesOf, useCohorts } from '../products/queries';
import { describePhase } from './chain-order';
import { HaltedBanner } from './HaltedBanner';
import { releaseKeys, useAllReleases, useCohortReleases } from './queries';
import { ReleaseForm } from './ReleaseForm';

export interface ReleasesSearch {
  cohort?: string;
}

function Flags({ release }: { release: Release }) {
  return (
    <Group gap={4}>
      {release.halted_at && <Badge color="red">halted</Badge>}
      {release.disabled && !release.halted_at && <Badge color="gray">disabled</Badge>}
      {release.required && <Badge color="blue">required</Badge>}
    </Group>
  );
}

export function ReleasesPage({ search, onSearch }: { search: ReleasesSearch; onSearch(next: ReleasesSearch): void }) {
  const { canWrite } = useSession();
  const all = useAllReleases();
  const ofCohort = useCohortReleases(search.cohort ?? '');
  const releases = search.cohort ? ofCohort : all;
  const cohorts = useCohorts();
  const cohortNames = namesOf(cohorts.data);
  const bundles = useBundles();
  const bundleNames = new Map((bundles.data ?? []).map((b) => [b.prn, bundleLabel(b)]));
  return (
    <Stack>
      <Title order={1} size="h2">
        Releases
      </Title>
      <HaltedBanner releases={releases.data ?? []} />
      <Select
        label="Cohort"
        placeholder="Every cohort"
        data={(cohorts.data ?? []).map((c) => ({ value: c.prn, label: c.name }))}
        value={search.cohort ?? null}
        onChange={(cohort) => onSearch(cohort ? { cohort } : {})}
        clearable
        searchable
        w={260}
      />
      <ResourceTable<Release>
        label="Releases"
        query={releases}
        listKey={releaseKeys.lists}
        rowTestId="release-row"
        minWidth={760}
        columns={[
          { header: 'Name', cell: (r) => <AnchorLink to="/releases/$prn" params={{ prn: r.prn }}>{r.name}</AnchorLink> },
          { header: 'Version', cell: (r) => r.version ?? '' },
          { header: 'Cohort', cell: (r) => <AnchorLink to="/cohorts/$prn" params={{ prn: r.cohort_prn }}>{cohortNames.get(r.cohort_prn) ?? r.cohort_prn}</AnchorLink> },
          { header: 'Bundle', cell: (r) => bundleNames.get(r.bundle_prn) ?? r.bundle_prn },
          { header: 'Phase', cell: describePhase },
          { header: 'Not before', cell: (r) => <Time value={r.schedule_date} empty="now" /> },
          { header: 'Flags', cell: (r) => <Flags release={r} /> },
        ]}
        empty={{ title: 'No releases', text: 'A release offers a bundle to a cohort\'s devices. Add one below: pick the bundle and cohort, its place in the chain, its phasing and schedule, and preview whom it reaches.' }}
        remove={{ path: '/releases/{prn}', question: (r) => `Delete the release ${r.name}? Its neighbours in the chain are joined.`, done: (r) => `Release ${r.name} deleted` }}
      />
      {canWrite && <ReleaseForm />}
    </Stack>
  );
}
