import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { Release } from '../../src/features/releases/queries';
import { chainOrder, describePhase } from '../../src/features/releases/chain-order';
import { ReleaseChain } from '../../src/features/releases/ReleaseChain';
import { renderWithTheme } from './render';

function release(name: string, previous: string | null, next: string | null, extra: Partial<Release> = {}): Release {
  return {
    prn: `prn:${name}`, organization_prn: 'prn:1:org', updated_at: '2026-01-01T00:00:00Z', name, bundle_prn: 'b', cohort_prn: 'c', description: null, required: false, disabled: false, schedule_date: null, schedule_complete: true,
    version: null, phase_mode: 'numeric', phase_tags: null, phase_type: null, phase_value: 1, phase_claim_count: 0, version_requirement: null, halt_failure_ratio: null, halt_min_reports: 10, halted_at: null, paused_at: null, cancelled_at: null, penalty_box: null, maintenance_windows: null, soak_seconds: null, max_concurrent: null, slot_timeout_seconds: null, inserted_at: '2026-01-01T00:00:00Z',
    previous_release_prn: previous ? `prn:${previous}` : null, next_release_prn: next ? `prn:${next}` : null, ...extra,
  };
}

// Listed out of order, as a page may give them.
const chain = [
  release('v3', 'v2', null, { phase_value: 0.25, phase_type: 'percent', phase_claim_count: 7 }),
  release('v1', null, 'v2', { required: true }),
  release('v2', 'v1', 'v3', { disabled: true, schedule_complete: false, schedule_date: '2030-01-01T00:00:00Z' }),
];

describe('release chain', () => {
  it('orders releases by their links, oldest first, keeping any the links miss', () => {
    expect(chainOrder(chain).map((r) => r.name)).toEqual(['v1', 'v2', 'v3']);
    const orphan = release('lost', 'gone', null);
    expect(chainOrder([...chain, orphan]).map((r) => r.name)).toContain('lost');
    expect(describePhase(chain[0])).toBe('25% of the cohort');
    expect(describePhase({ phase_mode: 'numeric', phase_tags: null, phase_value: 40 })).toBe('40 devices');
    expect(describePhase({ phase_mode: 'tags', phase_tags: ['beta'], phase_value: null })).toBe('devices tagged beta');
  });

  it('draws each link with its flags, phase and claims', () => {
    renderWithTheme(<ReleaseChain releases={chain} editable={false} />);
    const links = screen.getAllByTestId('chain-link');
    expect(links.map((l) => within(l).getByRole('region').getAttribute('aria-label'))).toEqual(['Release v1', 'Release v2', 'Release v3']);
    expect(within(links[0]).getByText('required')).toBeTruthy();
    expect(within(links[1]).getByText('disabled')).toBeTruthy();
    expect(within(links[1]).getByText('scheduled')).toBeTruthy();
    expect(within(links[2]).getByText('Phase: 25% of the cohort')).toBeTruthy();
    expect(within(links[2]).getByText('7 devices claimed a slot')).toBeTruthy();
    expect(screen.queryByText('Save')).toBeNull();
  });

  it('edits the phase in place when the user may write', () => {
    const onSave = vi.fn();
    renderWithTheme(<ReleaseChain releases={chain} editable onSavePhase={onSave} />);
    const last = screen.getAllByTestId('chain-link')[2];
    fireEvent.change(within(last).getByLabelText(/Phase value/), { target: { value: '0.5' } });
    fireEvent.click(within(last).getByText('Save'));
    expect(onSave).toHaveBeenCalledWith(expect.objectContaining({ name: 'v3' }), 0.5);
  });
});
