import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { useState } from 'react';
import { availableControls, RolloutControlButtons, RolloutSettingsFields, type RolloutSettings } from '../../src/features/releases/RolloutControls';
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
      const [value, setValue] = useState<RolloutSettings>({ penalty_box: null, maintenance_windows: null });
      return <RolloutSettingsFields value={value} onChange={(next) => (onChange(next), setValue(next))} />;
    }
    renderWithTheme(<Harness />);
    expect(screen.queryByLabelText('Failures')).toBeNull();
    fireEvent.click(screen.getByLabelText(/Own penalty box/));
    expect(onChange).toHaveBeenLastCalledWith({ penalty_box: { failures: 3, window_seconds: null, rest_seconds: 86_400 }, maintenance_windows: null });
    fireEvent.change(screen.getByLabelText('Within (seconds)'), { target: { value: '180' } });
    expect(onChange).toHaveBeenLastCalledWith({ penalty_box: { failures: 3, window_seconds: 180, rest_seconds: 86_400 }, maintenance_windows: null });
  });

  it("sends null for the cohort's maintenance windows, and one window once the user sets their own", () => {
    const onChange = vi.fn();
    function Harness() {
      const [value, setValue] = useState<RolloutSettings>({ penalty_box: null, maintenance_windows: null });
      return <RolloutSettingsFields value={value} onChange={(next) => (onChange(next), setValue(next))} />;
    }
    renderWithTheme(<Harness />);
    expect(screen.queryByLabelText('Time zone')).toBeNull();
    fireEvent.click(screen.getByLabelText(/Own maintenance window/));
    fireEvent.change(screen.getByLabelText('Time zone'), { target: { value: 'Europe/Berlin' } });
    fireEvent.click(screen.getByLabelText('sat'));
    expect(onChange).toHaveBeenLastCalledWith({
      penalty_box: null,
      maintenance_windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat'], start: '22:00', end: '04:00', time_zone: 'Europe/Berlin' }],
    });
  });
});
