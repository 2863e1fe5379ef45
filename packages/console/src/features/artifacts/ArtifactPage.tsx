/** One artifact: its versions (create, delete), each linking to its binaries. */
import { Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { AnchorLink } from '../../ui/AnchorLink';
import { ApiErrorAlert } from '../../ui/ApiError';
import { CreateForm } from '../../ui/CreateForm';
import { ResourceTable } from '../../ui/ResourceTable';
import { LoadingRows } from '../../ui/States';
import { Time } from '../../ui/Time';
import { useCreateResource } from '../../ui/useCreateResource';
import { artifactKeys, useArtifact, useArtifactVersions, type ArtifactVersion } from './queries';

export function ArtifactPage({ prn }: { prn: string }) {
  const { canWrite } = useSession();
  const artifact = useArtifact(prn);
  const versions = useArtifactVersions(prn);
  if (artifact.error) return <ApiErrorAlert error={artifact.error} title="Could not load the artifact" />;
  if (artifact.isPending) return <LoadingRows label="Loading artifact" />;
  return (
    <Stack>
      <Title order={1} size="h2">
        Artifact {artifact.data.name}
      </Title>
      <Text size="xs" ff="monospace" c="dimmed">
        {prn}
      </Text>
      {canWrite && <CreateVersion artifactPrn={prn} />}
      <ResourceTable<ArtifactVersion>
        label="Versions"
        query={versions}
        listKey={artifactKeys.versionsOf(prn)}
        rowTestId="version-row"
        columns={[
          { header: 'Version', cell: (v) => <AnchorLink to="/artifact-versions/$prn" params={{ prn: v.prn }}>{v.version}</AnchorLink> },
          { header: 'Description', cell: (v) => v.description ?? '' },
          { header: 'Created', cell: (v) => <Time value={v.inserted_at} /> },
        ]}
        empty={{ title: 'No versions yet', text: 'Add a version above (such as 1.4.0), then upload its binaries, one per target.' }}
        remove={{ path: '/artifact_versions/{prn}', question: (v) => `Delete version ${v.version}? A version with binaries or in a bundle cannot be deleted.`, done: (v) => `Version ${v.version} deleted` }}
      />
    </Stack>
  );
}

function CreateVersion({ artifactPrn }: { artifactPrn: string }) {
  const [version, setVersion] = useState('');
  const [description, setDescription] = useState('');
  const create = useCreateResource('/artifact_versions', artifactKeys.versionsOf(artifactPrn), (body) => `Version ${body.version} created`, () => {
    setVersion('');
    setDescription('');
  });
  return (
    <CreateForm title="New version" submitLabel="Create version" pending={create.isPending} error={create.error} onSubmit={() => create.mutate({ artifact_prn: artifactPrn, version: version.trim(), description: description.trim() || null })}>
      <TextInput label="Version" placeholder="1.4.0" value={version} onChange={(e) => setVersion(e.currentTarget.value)} required />
      <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
    </CreateForm>
  );
}
