/**
 * One binary: where it is in the state machine (read again every second while the server is
 * verifying it), its parts, and its signatures (add, sign in the browser, delete).
 */
import { Badge, Button, Code, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useSession } from '../../api/session-context';
import { AnchorLink } from '../../ui/AnchorLink';
import { ApiErrorAlert } from '../../ui/ApiError';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { ResourceTable } from '../../ui/ResourceTable';
import { LoadingRows } from '../../ui/States';
import { notifyFailure, notifySuccess } from '../../ui/notify';
import { formatBytes } from '../artifacts/ArtifactVersionPage';
import type { Binary } from '../artifacts/queries';
import { BinaryStates, stateColour } from './BinaryStates';
import { BinaryDeltas } from './BinaryDeltas';
import { BinarySignatures } from './BinarySignatures';
import { binaryKeys, patchBinary, useBinary, useParts, type BinaryPart } from './queries';

export function BinaryPage({ prn }: { prn: string }) {
  const binary = useBinary(prn);
  if (binary.error) return <ApiErrorAlert error={binary.error} title="Could not load the binary" />;
  if (binary.isPending) return <LoadingRows label="Loading binary" />;
  const b = binary.data;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Binary for {b.target}
        </Title>
        <Badge color={stateColour(b.state)}>{b.state}</Badge>
      </Group>
      <Text size="sm">
        Of{' '}
        <AnchorLink to="/artifact-versions/$prn" params={{ prn: b.artifact_version_prn }}>
          its artifact version
        </AnchorLink>
        . {formatBytes(Number(b.size))}, SHA-256 <Code>{b.hash}</Code>
      </Text>
      <Paper withBorder p="sm">
        <BinaryStates state={b.state} hashError={b.hash_error} />
      </Paper>
      <StateActions binary={b} />
      <BinarySignatures binary={b} />
      <BinaryDeltas prn={prn} />
      <Parts prn={prn} state={b.state} />
    </Stack>
  );
}

/** The moves a user may ask for: verify a fully sent binary again, destroy it. */
function StateActions({ binary }: { binary: Binary }) {
  const { client, canWrite } = useSession();
  const queries = useQueryClient();
  const move = useMutation({
    mutationFn: (state: 'hashing' | 'destroyed') => patchBinary(client, binary.prn, { state }),
    onSuccess: (_, state) => {
      notifySuccess(`Binary moved to ${state}`);
      void queries.invalidateQueries({ queryKey: binaryKeys.one(binary.prn) });
    },
    onError: notifyFailure,
  });
  if (!canWrite || binary.state === 'destroyed') return null;
  return (
    <Group>
      {binary.state === 'hashable' && <Button onClick={() => move.mutate('hashing')}>Verify the bytes</Button>}
      <ConfirmButton question="Destroy this binary? Its bytes are removed, and bundles holding it can no longer be distributed." onConfirm={() => move.mutate('destroyed')}>
        Destroy
      </ConfirmButton>
    </Group>
  );
}

function Parts({ prn, state }: { prn: string; state: string }) {
  const parts = useParts(prn, state);
  return (
    <Stack gap="xs">
      <Title order={2} size="h3">
        Parts
      </Title>
      <ResourceTable<BinaryPart>
        label="Parts"
        query={parts}
        listKey={binaryKeys.parts(prn)}
        // A part has no prn of its own: its index is its key.
        rowKey={(part) => String(part.index)}
        rowTestId="part-row"
        minWidth={420}
        columns={[
          { header: 'Index', cell: (part) => part.index },
          { header: 'Size', cell: (part) => formatBytes(part.size) },
          { header: 'State', cell: (part) => part.state },
          { header: 'SHA-256', cell: (part) => <Code title={part.hash}>{part.hash.slice(0, 16)}…</Code> },
        ]}
        empty={{ title: 'No parts', text: 'The parts arrive as the binary is uploaded from its version\'s page.' }}
      />
    </Stack>
  );
}
