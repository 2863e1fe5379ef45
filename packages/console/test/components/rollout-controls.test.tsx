import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { useState } from 'react';
import { availableControls, DEFAULT_ROLLOUT_SETTINGS, RolloutControlButtons, RolloutSettingsFields, type RolloutSettings } from '../../src/features/releases/RolloutControls';
import { capText } from '../../src/features/releases/RolloutProgress';
import { renderWithTheme } from './render';

const running = { name: 'v2', paused_at: null, cancelled_at: null, halted_at: null };

describe('rollout controls', () => {
  it('offer what the server would act on: pause or resume, and cancel until cancelled', () => {
    expect(availableControls(running)).toEqual(['pause', 'cancel']);
    expect(availableControls({ ...running, paused_at: '2026-01-01T00:00:00Z' })).toEqual(['resume', 'cancel']);
    expect(availableControls({ ...running, halted_at: '2026-01-01T00:00:00Z' })).toEqual(['pause', 'cancel']);
    expect(availableControls({ ...running, cancelled_at: '2026-01-01T00:00:00Z' })).toEqual([]);
  });

  it('pauses at once and cancels only after a confirmation', () => {
    const onControl = vi.fn();
    renderWithTheme(<RolloutControlButtons release={running} canWrite onControl={onControl} />);
    fireEvent.click(screen.getByRole('button', { name: 'Pause v2' }));
    expect(onControl).toHaveBeenLastCalledWith('pause');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel release v2' }));
    expect(onControl).toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByRole('button', { name: 'Confirm: cancel v2 for good' }));
    expect(onControl).toHaveBeenLastCalledWith('cancel');
  });

  it('shows the state without buttons to a reader, and no buttons on a cancelled release', () => {
    renderWithTheme(<RolloutControlButtons release={{ ...running, paused_at: '2026-01-01T00:00:00Z' }} canWrite={false} onControl={() => undefined} />);
    expect(screen.getByText('paused')).toBeTruthy();
    expect(screen.queryAllByRole('button')).toHaveLength(0);
  });

  it('sends null for the default penalty box, and the three fields once the user sets their own', () => {
    const onChange = vi.fn();
    function Harness() {
      const [value, setValue] = useState<RolloutSettings>(DEFAULT_ROLLOUT_SETTINGS);
      return <RolloutSettingsFields value={value} onChange={(next) => (onChange(next), setValue(next))} />;
    }
    renderWithTheme(<Harness />);
    expect(screen.queryByLabelText('Failures')).toBeNull();
    fireEvent.click(screen.getByLabelText(/Own penalty box/));
    expect(onChange).toHaveBeenLastCalledWith({ ...DEFAULT_ROLLOUT_SETTINGS, penalty_box: { failures: 3, window_seconds: null, rest_seconds: 86_400 } });
    fireEvent.change(screen.getByLabelText('Within (seconds)'), { target: { value: '180' } });
    expect(onChange).toHaveBeenLastCalledWith({ ...DEFAULT_ROLLOUT_SETTINGS, penalty_box: { failures: 3, window_seconds: 180, rest_seconds: 86_400 } });
  });

  it("sends null for the cohort's maintenance windows, and one window once the user sets their own", () => {
    const onChange = vi.fn();
    function Harness() {
      const [value, setValue] = useState<RolloutSettings>(DEFAULT_ROLLOUT_SETTINGS);
      return <RolloutSettingsFields value={value} onChange={(next) => (onChange(next), setValue(next))} />;
    }
    renderWithTheme(<Harness />);
    expect(screen.queryByLabelText('Time zone')).toBeNull();
    fireEvent.click(screen.getByLabelText(/Own maintenance window/));
    fireEvent.change(screen.getByLabelText('Time zone'), { target: { value: 'Europe/Berlin' } });
    fireEvent.click(screen.getByLabelText('sat'));
    expect(onChange).toHaveBeenLastCalledWith({
      ...DEFAULT_ROLLOUT_SETTINGS,
      maintenance_windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat'], start: '22:00', end: '04:00', time_zone: 'Europe/Berlin' }],
    });
  });

  it('sends null for no cap, the cap and then its timeout once the user sets them', () => {
    const onChange = vi.fn();
    function Harness() {
      const [value, setValue] = useState<RolloutSettings>(DEFAULT_ROLLOUT_SETTINGS);
      return <RolloutSettingsFields value={value} onChange={(next) => (onChange(next), setValue(next))} />;
    }
    renderWithTheme(<Harness />);
    expect(screen.queryByLabelText(/Place freed after/)).toBeNull();
    fireEvent.change(screen.getByLabelText(/Updating at once/), { target: { value: '500' } });
    expect(onChange).toHaveBeenLastCalledWith({ ...DEFAULT_ROLLOUT_SETTINGS, max_concurrent: 500 });
    fireEvent.change(screen.getByLabelText(/Place freed after/), { target: { value: '1800' } });
    expect(onChange).toHaveBeenLastCalledWith({ ...DEFAULT_ROLLOUT_SETTINGS, max_concurrent: 500, slot_timeout_seconds: 1800 });
  });

  it('shows the cap in use as "updating now N of cap"', () => {
    expect(capText({ updating_now: 37, max_concurrent: 500 })).toBe('updating now 37 of 500');
  });
});
