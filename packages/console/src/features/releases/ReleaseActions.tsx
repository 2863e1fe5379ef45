/**
 * What an operator does to a release that goes wrong: halt it (`PATCH disabled: true`: no device
 * is offered it; installs under way finish), resume it (`disabled: false`, which also clears a
 * health-gate halt), or revert it (`POST /releases/{prn}/revert`: halts it and appends a required
 * release of the bundle before it, so devices that took it go back).
 */
import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { ApiErrorAlert } from '../../ui/ApiError';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { notifyFailure, notifySuccess } from '../../ui/notify';
import { patchRelease, releaseKeys, revertRelease, type Release } from './queries';

export function ReleaseActions({ release }: { release: Release }) {
  const { client, canWrite } = useSession();
  const queries = useQueryClient();
  const refresh = () => {
    void queries.invalidateQueries({ queryKey: releaseKeys.lists });
    void queries.invalidateQueries({ queryKey: releaseKeys.rollouts });
  };
  const toggle = useMutation({
    mutationFn: (disabled: boolean) => patchRelease(client, release.prn, { disabled }),
    onSuccess: (_, disabled) => {
      notifySuccess(disabled ? `Release ${release.name} halted: no device will start it` : `Release ${release.name} resumed`);
      refresh();
    },
    onError: notifyFailure,
  });
  if (!canWrite) return null;
  return (
    <Group gap="sm" data-testid="release-actions">
      {release.disabled ? (
        <Button loading={toggle.isPending} onClick={() => toggle.mutate(false)}>
          Resume {release.name}
        </Button>
      ) : (
        <ConfirmButton color="red" variant="filled" loading={toggle.isPending} question={`Halt release ${release.name}? No device will be offered it until it is resumed; installs already under way finish.`} onConfirm={() => toggle.mutate(true)}>
          Halt {release.name}
        </ConfirmButton>
      )}
      <RevertButton release={release} onDone={refresh} />
    </Group>
  );
}

function RevertButton({ release, onDone }: { release: Release; onDone(): void }) {
  const { client } = useSession();
  const navigate = useNavigate();
  const [opened, { open, close }] = useDisclosure(false);
  const [name, setName] = useState(`revert-${release.name}`);
  const revert = useMutation({
    mutationFn: () => revertRelease(client, release.prn, { name: name.trim() }),
    onSuccess: (created) => {
      close();
      notifySuccess(`Release ${release.name} reverted: ${created.name} takes its devices back to the release before it`);
      onDone();
      void navigate({ to: '/releases/$prn', params: { prn: created.prn } });
    },
  });
  if (!release.previous_release_prn)
    return (
      <Text size="sm" c="dimmed">
        Nothing to revert to: {release.name} is the first release of its cohort.
      </Text>
    );
  return (
    <>
      <Button variant="default" onClick={open}>
        Revert {release.name}
      </Button>
      <Modal opened={opened} onClose={close} title={`Revert ${release.name}`} centered closeButtonProps={{ 'aria-label': 'Close' }}>
        <Stack component="form" gap="sm" onSubmit={(e) => { e.preventDefault(); revert.mutate(); }}>
          <Text size="sm">
            {release.name} is halted, and a new required release with the bundle of the release before it is added at the end of the chain: devices that installed {release.name} go back.
          </Text>
          <TextInput label="Name of the new release" value={name} onChange={(e) => setName(e.currentTarget.value)} required data-autofocus />
          <ApiErrorAlert error={revert.error} title="Could not revert" />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" color="red" loading={revert.isPending}>
              Revert
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
