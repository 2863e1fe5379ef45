/**
 * Pause, resume and cancel of a release (`POST /releases/{prn}/pause|resume|cancel`; the guide
 * site/docs/canopy-core/guides/rolling-out-safely.md). `RolloutControlButtons` only draws what
 * the release's state allows and reports the click; `RolloutControls` sends it and refreshes the
 * release lists and rollouts. Cancel is final, so it asks for a confirmation first.
 */
import { Badge, Button, Group } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { answerOf } from '../../api/lists';
import { useSession } from '../../api/session-context';
import { notifyFailure, notifySuccess } from '../../ui/notify';
import { releaseKeys, type Release } from './queries';

export type RolloutControl = 'pause' | 'resume' | 'cancel';
type ControlledRelease = Pick<Release, 'name' | 'paused_at' | 'cancelled_at' | 'halted_at'>;

/** The controls the server would act on: a cancelled release takes none (409 release_cancelled). */
export function availableControls(release: ControlledRelease): RolloutControl[] {
  if (release.cancelled_at) return [];
  const controls: RolloutControl[] = release.paused_at || release.halted_at ? ['resume'] : ['pause'];
  return [...controls, 'cancel'];
}

const LABELS: Record<RolloutControl, string> = { pause: 'Pause', resume: 'Resume', cancel: 'Cancel release' };

export function RolloutControlButtons(props: { release: ControlledRelease; canWrite: boolean; pending?: RolloutControl | null; onControl: (control: RolloutControl) => void }) {
  const { release, canWrite, pending = null, onControl } = props;
  const [confirming, setConfirming] = useState(false);
  const state = release.cancelled_at ? 'cancelled' : release.paused_at ? 'paused' : null;
  return (
    <Group gap="xs" wrap="nowrap" data-testid="rollout-controls">
      {state && <Badge color={state === 'cancelled' ? 'gray' : 'yellow'}>{state}</Badge>}
      {canWrite &&
        availableControls(release).map((control) =>
          control === 'cancel' && confirming ? (
            <Button key="confirm" size="compact-xs" color="red" loading={pending === 'cancel'} onClick={() => onControl('cancel')} aria-label={`Confirm: cancel ${release.name} for good`}>
              Cancel for good?
            </Button>
          ) : (
            <Button
              key={control}
              size="compact-xs"
              variant={control === 'cancel' ? 'outline' : 'light'}
              color={control === 'cancel' ? 'red' : undefined}
              loading={pending === control}
              aria-label={`${LABELS[control]} ${release.name}`}
              onClick={() => (control === 'cancel' ? setConfirming(true) : onControl(control))}
            >
              {LABELS[control]}
            </Button>
          ),
        )}
    </Group>
  );
}

export function RolloutControls({ release }: { release: Release }) {
  const { client, canWrite } = useSession();
  const queries = useQueryClient();
  const control = useMutation({
    mutationFn: (action: RolloutControl) => {
      const params = { params: { path: { prn: release.prn } } };
      const sent = action === 'pause' ? client.api.POST('/releases/{prn}/pause', params) : action === 'resume' ? client.api.POST('/releases/{prn}/resume', params) : client.api.POST('/releases/{prn}/cancel', params);
      return answerOf(sent);
    },
    onSuccess: (_, action) => {
      notifySuccess(`Release ${release.name} ${action === 'pause' ? 'paused' : action === 'resume' ? 'resumed' : 'cancelled'}`);
      void queries.invalidateQueries({ queryKey: releaseKeys.lists });
      void queries.invalidateQueries({ queryKey: releaseKeys.rollouts });
    },
    onError: notifyFailure,
  });
  return <RolloutControlButtons release={release} canWrite={canWrite} pending={control.isPending ? (control.variables ?? null) : null} onControl={(action) => control.mutate(action)} />;
}
