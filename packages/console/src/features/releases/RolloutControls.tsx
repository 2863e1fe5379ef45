/**
 * Pause, resume and cancel of a release (`POST /releases/{prn}/pause|resume|cancel`; the guide
 * site/docs/canopy-core/guides/rolling-out-safely.md). `RolloutControlButtons` only draws what
 * the release's state allows and reports the click; `RolloutControls` sends it and refreshes the
 * release lists and rollouts. Cancel is final, so it asks for a confirmation first.
 * `RolloutSettingsFields`: the release form's fields for the rollout controls' settings.
 */
import { Badge, Button, Checkbox, Chip, Group, NumberInput, Stack, TextInput } from '@mantine/core';
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
  // A halt (the health gate's, or by hand) is resumed where it is shown: the halted banner and the release's actions.
  const controls: RolloutControl[] = release.paused_at ? ['resume'] : ['pause'];
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

export type PenaltyBoxSetting = NonNullable<Release['penalty_box']>;
export type MaintenanceWindowSetting = NonNullable<Release['maintenance_windows']>[number];
export interface RolloutSettings {
  penalty_box: PenaltyBoxSetting | null;
  /** One window here; the API and CLI take several. Null: the cohort's windows. */
  maintenance_windows: MaintenanceWindowSetting[] | null;
  /** The concurrency cap: devices updating the release at once; null: no cap. */
  max_concurrent: number | null;
  /** A capped device that never reports frees its place after this; null: 3600 s. */
  slot_timeout_seconds: number | null;
}
export const DEFAULT_ROLLOUT_SETTINGS: RolloutSettings = { penalty_box: null, maintenance_windows: null, max_concurrent: null, slot_timeout_seconds: null };
const WINDOW_START: MaintenanceWindowSetting = { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '22:00', end: '04:00', time_zone: 'UTC' };
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
/** The server's defaults, shown when the user starts from them. */
const PENALTY_DEFAULTS: PenaltyBoxSetting = { failures: 3, window_seconds: null, rest_seconds: 86_400 };

const numberOrNull = (value: number | string) => (value === '' ? null : Number(value));

export function RolloutSettingsFields({ value, onChange }: { value: RolloutSettings; onChange: (next: RolloutSettings) => void }) {
  const box = value.penalty_box;
  const setBox = (patch: Partial<PenaltyBoxSetting>) => onChange({ ...value, penalty_box: { ...(box ?? PENALTY_DEFAULTS), ...patch } });
  const window = value.maintenance_windows?.[0] ?? null;
  const setWindow = (patch: Partial<MaintenanceWindowSetting>) => onChange({ ...value, maintenance_windows: [{ ...(window ?? WINDOW_START), ...patch }] });
  return (
    <Stack gap="xs" data-testid="rollout-settings">
      <Checkbox
        label="Own penalty box (default: 3 failures rest a device from the release for 24 h)"
        checked={box !== null}
        onChange={(event) => onChange({ ...value, penalty_box: event.currentTarget.checked ? PENALTY_DEFAULTS : null })}
      />
      {box && (
        <Group>
          <NumberInput label="Failures" min={1} max={100} value={box.failures} onChange={(v) => setBox({ failures: Number(v) })} w={120} />
          <NumberInput label="Within (seconds)" description="Empty: no window" min={1} value={box.window_seconds ?? ''} onChange={(v) => setBox({ window_seconds: numberOrNull(v) })} w={160} />
          <NumberInput label="Rest (seconds)" min={1} value={box.rest_seconds} onChange={(v) => setBox({ rest_seconds: Number(v) })} w={160} />
        </Group>
      )}
      <Group>
        <NumberInput
          label="Updating at once, at most"
          description="Empty: no cap; beyond it devices retry later"
          min={1}
          max={1_000_000}
          value={value.max_concurrent ?? ''}
          onChange={(v) => onChange({ ...value, max_concurrent: numberOrNull(v) })}
          w={220}
        />
        {value.max_concurrent !== null && (
          <NumberInput
            label="Place freed after (seconds)"
            description="Empty: 3600; a device that never reports"
            min={10}
            max={604_800}
            value={value.slot_timeout_seconds ?? ''}
            onChange={(v) => onChange({ ...value, slot_timeout_seconds: numberOrNull(v) })}
            w={220}
          />
        )}
      </Group>
      <Checkbox
        label="Own maintenance window (default: the cohort's; outside it no new device is offered the release)"
        checked={window !== null}
        onChange={(event) => onChange({ ...value, maintenance_windows: event.currentTarget.checked ? [WINDOW_START] : null })}
      />
      {window && (
        <Stack gap={4}>
          <Chip.Group multiple value={window.days} onChange={(days) => setWindow({ days: DAYS.filter((day) => days.includes(day)) })}>
            <Group gap={4} aria-label="Days">
              {DAYS.map((day) => (
                <Chip key={day} value={day} size="xs">
                  {day}
                </Chip>
              ))}
            </Group>
          </Chip.Group>
          <Group>
            <TextInput label="Opens (HH:MM)" value={window.start} onChange={(event) => setWindow({ start: event.currentTarget.value })} w={120} />
            <TextInput label="Closes (HH:MM)" description="At or before opening: next day" value={window.end} onChange={(event) => setWindow({ end: event.currentTarget.value })} w={160} />
            <TextInput label="Time zone" description="IANA, e.g. Europe/Berlin" value={window.time_zone} onChange={(event) => setWindow({ time_zone: event.currentTarget.value })} w={200} />
          </Group>
        </Stack>
      )}
    </Stack>
  );
}
