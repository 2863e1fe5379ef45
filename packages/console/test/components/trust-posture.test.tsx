import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TrustPostureView } from '../../src/features/signing-keys/TrustPosture';
import { renderWithTheme } from './render';

describe('trust posture', () => {
  it('counts devices per root version and lists the stale ones', () => {
    renderWithTheme(
      <TrustPostureView
        posture={{
          current_root_version: 3,
          root_versions: [{ version: 2, devices: 4 }, { version: 3, devices: 96 }],
          stale_devices: 4,
          stale: [{ device_prn: 'prn:1:o:device:d1', root_version: 2, reported_at: '2026-11-01T00:00:00Z' }],
        }}
        device={(prn) => prn}
      />,
    );
    expect(screen.getByTestId('posture-summary').textContent).toBe('Current root: version 3. 4 devices trust an older root.');
    const versions = screen.getAllByTestId('posture-version-row').map((row) => within(row).getAllByRole('cell').map((cell) => cell.textContent));
    expect(versions).toEqual([['2', '4'], ['3 (current)', '96']]);
    expect(within(screen.getByTestId('posture-stale-row')).getByText('prn:1:o:device:d1')).toBeTruthy();
  });

  it('says when every device is current, and when the organization has no root', () => {
    renderWithTheme(<TrustPostureView posture={{ current_root_version: 1, root_versions: [{ version: 1, devices: 1 }], stale_devices: 0, stale: [] }} />);
    expect(screen.getByTestId('posture-summary').textContent).toMatch(/Every device that fetched metadata trusts it/);
    expect(screen.queryByTestId('posture-stale-row')).toBeNull();
    renderWithTheme(<TrustPostureView posture={{ current_root_version: null, root_versions: [], stale_devices: 0, stale: [] }} />);
    expect(screen.getByText(/no TUF root yet/)).toBeTruthy();
  });
});
