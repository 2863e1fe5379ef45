/** One artifact version: its binaries (one per target) and the browser upload of another. */
import { Badge, Stack, Text, Title } from '@mantine/core';
import { useSession } from '../../api/session-context';
import { AnchorLink } from '../../ui/AnchorLink';
import { ApiErrorAlert } from '../../ui/ApiError';
import { ResourceTable } from '../../ui/ResourceTable';
import { LoadingRows } from '../../ui/States';
import { Time } from '../../ui/Time';
import { BinaryUpload } from '../binaries/BinaryUpload';
import { stateColour } from '../binaries/BinaryStates';
import { artifactKeys, useArtifactVersion, useBinariesOf, type Binary } from './queries';

export const formatBytes = (size: number) => (size >= 1024 * 1024 ? `${(size / (1024 * 1024)).toFixed(1)} MiB` : `${size} B`);

export function ArtifactVersionPage({ prn }: { prn: string }) {
  const { canWrite } = useSession();
  const version = useArtifactVersion(prn);
  const binaries = useBinariesOf(prn);
  if (version.error) return <ApiErrorAlert error={version.error} title="Could not load the version" />;
  if (version.isPending) return <LoadingRows label="Loading version" />;
  return (
    <Stack>
      <Title order={1} size="h2">
        Version {version.data.version}
      </Title>
      <Text size="sm">
        Of the{' '}
        <AnchorLink to="/artifacts/$prn" params={{ prn: version.data.artifact_prn }}>
          artifact
        </AnchorLink>
        . <Text span size="xs" ff="monospace" c="dimmed">{prn}</Text>
      </Text>
      {canWrite && <BinaryUpload artifactVersionPrn={prn} />}
      <Title order={2} size="h3">
        Binaries
      </Title>
      <ResourceTable<Binary>
        label="Binaries"
        query={binaries}
        listKey={artifactKeys.binariesOf(prn)}
        rowTestId="binary-row"
        columns={[
          { header: 'Target', cell: (b) => <AnchorLink to="/binaries/$prn" params={{ prn: b.prn }}>{b.target}</AnchorLink> },
          { header: 'State', cell: (b) => <Badge color={stateColour(b.state)}>{b.state}</Badge> },
          { header: 'Size', cell: (b) => formatBytes(Number(b.size)) },
          { header: 'Created', cell: (b) => <Time value={String(b.inserted_at)} /> },
        ]}
        empty={{ title: 'No binaries yet', text: 'Upload the file built for each target above; it is sent in parts and verified by the server.' }}
      />
    </Stack>
  );
}
