/** Bundles: the artifact versions shipped together (immutable once made); releases and overrides deliver them. */
import { MultiSelect, Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { CreateForm } from '../../ui/CreateForm';
import { ResourceTable } from '../../ui/ResourceTable';
import { Time } from '../../ui/Time';
import { useCreateResource } from '../../ui/useCreateResource';
import { bundleKeys, bundleLabel, useBundles, useVersionLabels, type Bundle } from './queries';

export function BundlesPage() {
  const { canWrite } = useSession();
  const bundles = useBundles();
  const versions = useVersionLabels();
  return (
    <Stack>
      <Title order={1} size="h2">
        Bundles
      </Title>
      {canWrite && <CreateBundle versions={versions} />}
      <ResourceTable<Bundle>
        label="Bundles"
        query={bundles}
        listKey={bundleKeys.list}
        rowTestId="bundle-row"
        columns={[
          { header: 'Name', cell: bundleLabel },
          { header: 'Artifact versions', cell: (b) => b.artifact_version_prns.map((prn) => versions.get(prn) ?? prn).join(', ') },
          { header: 'Created', cell: (b) => <Time value={b.inserted_at} /> },
        ]}
        empty={{ title: 'No bundles yet', text: 'A bundle is the set of artifact versions a device runs. Make one above from versions whose binaries are uploaded and signed, then release it to a cohort.' }}
        remove={{ path: '/bundles/{prn}', question: (b) => `Delete the bundle ${bundleLabel(b)}? A bundle that a release uses cannot be deleted.`, done: (b) => `Bundle ${bundleLabel(b)} deleted` }}
      />
    </Stack>
  );
}

function CreateBundle({ versions }: { versions: Map<string, string> }) {
  const [name, setName] = useState('');
  const [picked, setPicked] = useState<string[]>([]);
  const create = useCreateResource('/bundles', bundleKeys.list, (body) => `Bundle ${body.name ?? ''} created`, () => {
    setName('');
    setPicked([]);
  });
  return (
    <CreateForm title="New bundle" submitLabel="Create bundle" pending={create.isPending} error={create.error} onSubmit={() => create.mutate({ name: name.trim() || null, artifact_version_prns: picked })}>
      <TextInput label="Bundle name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
      <MultiSelect
        label="Artifact versions"
        description="In order; a bundle cannot be changed once made"
        data={[...versions].map(([value, label]) => ({ value, label }))}
        value={picked}
        onChange={setPicked}
        searchable
        required
      />
    </CreateForm>
  );
}
