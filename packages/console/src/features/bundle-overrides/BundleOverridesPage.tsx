/** Bundle overrides: a bundle for chosen devices during a window, ahead of any release. */
import { Badge, Select, Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { AnchorLink } from '../../ui/AnchorLink';
import { CreateForm } from '../../ui/CreateForm';
import { LocalTimeInput, toApiTime } from '../../ui/LocalTimeInput';
import { ResourceTable } from '../../ui/ResourceTable';
import { Time } from '../../ui/Time';
import { useCreateResource } from '../../ui/useCreateResource';
import { bundleLabel, useBundles } from '../bundles/queries';
import { overrideKeys, useOverrides, type BundleOverride } from './queries';

export const isActive = (o: BundleOverride, now = Date.now()) => Date.parse(o.starts_at) <= now && (o.ends_at === null || now < Date.parse(o.ends_at));

export function useBundleNames() {
  const bundles = useBundles();
  return new Map((bundles.data ?? []).map((b) => [b.prn, bundleLabel(b)]));
}

export function BundleOverridesPage() {
  const { canWrite } = useSession();
  const overrides = useOverrides();
  const bundleNames = useBundleNames();
  return (
    <Stack>
      <Title order={1} size="h2">
        Bundle overrides
      </Title>
      {canWrite && <CreateOverride bundleNames={bundleNames} />}
      <ResourceTable<BundleOverride>
        label="Bundle overrides"
        query={overrides}
        listKey={overrideKeys.list}
        rowTestId="override-row"
        columns={[
          { header: 'Name', cell: (o) => <AnchorLink to="/bundle-overrides/$prn" params={{ prn: o.prn }}>{o.name}</AnchorLink> },
          { header: 'Bundle', cell: (o) => bundleNames.get(o.bundle_prn) ?? o.bundle_prn },
          { header: 'Starts', cell: (o) => <Time value={o.starts_at} /> },
          { header: 'Ends', cell: (o) => (o.ends_at ? <Time value={o.ends_at} /> : 'never') },
          { header: 'Now', cell: (o) => (isActive(o) ? <Badge color="green">active</Badge> : <Badge color="gray">inactive</Badge>) },
        ]}
        empty={{ title: 'No bundle overrides', text: 'An override gives chosen devices a bundle for a time window, whatever their releases say (field trials, debug builds). Create one above, then add its devices.' }}
        remove={{ path: '/bundle_overrides/{prn}', question: (o) => `Delete the override ${o.name}? Its devices go back to their releases.`, done: (o) => `Override ${o.name} deleted` }}
      />
    </Stack>
  );
}

function CreateOverride({ bundleNames }: { bundleNames: Map<string, string> }) {
  const [name, setName] = useState('');
  const [bundle, setBundle] = useState<string | null>(null);
  const [startsAt, setStartsAt] = useState('');
  const [endsAt, setEndsAt] = useState('');
  const create = useCreateResource('/bundle_overrides', overrideKeys.list, (body) => `Override ${body.name} created`, () => setName(''));
  return (
    <CreateForm
      title="New bundle override"
      submitLabel="Create override"
      pending={create.isPending}
      error={create.error}
      onSubmit={() => create.mutate({ name: name.trim(), bundle_prn: bundle as string, starts_at: toApiTime(startsAt) ?? new Date().toISOString(), ends_at: toApiTime(endsAt) })}
    >
      <TextInput label="Override name" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
      <Select label="Bundle" data={[...bundleNames].map(([value, label]) => ({ value, label }))} value={bundle} onChange={setBundle} searchable required />
      <LocalTimeInput label="Starts (empty: now)" value={startsAt} onChange={setStartsAt} />
      <LocalTimeInput label="Ends (empty: never)" value={endsAt} onChange={setEndsAt} />
    </CreateForm>
  );
}
