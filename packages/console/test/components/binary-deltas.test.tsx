import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { DeltaTable, deltaSizeText, type BinaryDelta } from '../../src/features/binaries/BinaryDeltas';
import { renderWithTheme } from './render';

const delta = (over: Partial<BinaryDelta>): BinaryDelta => ({
  base_binary_prn: 'prn:1:org:binary:base',
  target_binary_prn: 'prn:1:org:binary:target',
  state: 'ready',
  size: 680_000,
  hash: 'ab'.repeat(32),
  target_size: 67_108_864,
  error: null,
  inserted_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  ...over,
});

describe('binary deltas', () => {
  it('says per base whether a delta exists, its state and its size beside the full binary', () => {
    renderWithTheme(<DeltaTable deltas={[delta({}), delta({ base_binary_prn: 'prn:1:org:binary:old', state: 'pending', size: null, hash: null })]} base={(prn) => prn} />);
    expect(screen.getAllByTestId('delta-row')).toHaveLength(2);
    expect(screen.getByText('prn:1:org:binary:base')).toBeTruthy();
    expect(screen.getByText(/\(1\.0% of /)).toBeTruthy();
    expect(screen.getByText('being made')).toBeTruthy();
  });

  it('names a failed or useless delta for what it is, and says when there is none', () => {
    expect(deltaSizeText(delta({ state: 'failed', size: null, error: 'zstd exited with 1' }))).toBe('not made: zstd exited with 1');
    expect(deltaSizeText(delta({ state: 'not_smaller', size: 70_000_000 }))).toMatch(/not smaller, not offered$/);
    renderWithTheme(<DeltaTable deltas={[]} />);
    expect(screen.getByText(/^No deltas/)).toBeTruthy();
  });
});
