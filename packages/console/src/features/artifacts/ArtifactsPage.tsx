/** Artifacts: the things you ship (an OS image, an application), each with versions. */
import { Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { AnchorLink } from '../../ui/AnchorLink';
import { CreateForm } from '../../ui/CreateForm';
import { ResourceTable } from '../../ui/ResourceTable';
import { Time } from '../../ui/Time';
import { useCreateResource } from '../../ui/useCreateResource';
import { artifactKeys, useArtifacts, type Artifact } from './queries';

export function ArtifactsPage() {
  const { canWrite } = useSession();
  const artifacts = useArtifacts();
  return (
    <Stack>
      <Title order={1} size="h2">
        Artifacts
      </Title>
      {canWrite && <CreateArtifact />}
      <ResourceTable<Artifact>
        label="Artifacts"
        query={artifacts}
        listKey={artifactKeys.list}
        rowTestId="artifact-row"
        columns={[
          { header: 'Name', cell: (a) => <AnchorLink to="/artifacts/$prn" params={{ prn: a.prn }}>{a.name}</AnchorLink> },
          { header: 'Description', cell: (a) => a.description ?? '' },
          { header: 'Created', cell: (a) => <Time value={a.inserted_at} /> },
        ]}
        empty={{ title: 'No artifacts yet', text: 'An artifact is something you ship, such as an OS image. Create one above, then add versions and upload their binaries.' }}
        remove={{ path: '/artifacts/{prn}', question: (a) => `Delete the artifact ${a.name}? Only an artifact without versions can be deleted.`, done: (a) => `Artifact ${a.name} deleted` }}
      />
    </Stack>
  );
}

function CreateArtifact() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useCreateResource('/artifacts', artifactKeys.list, (body) => `Artifact ${body.name} created`, () => {
    setName('');
    setDescription('');
  });
  return (
    <CreateForm title="New artifact" submitLabel="Create artifact" pending={create.isPending} error={create.error} onSubmit={() => create.mutate({ name: name.trim(), description: description.trim() || null })}>
      <TextInput label="Artifact name" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
      <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
    </CreateForm>
  );
}
