import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { relativeTime, Time, utcLabel } from '../../src/ui/Time';

const NOW = Date.parse('2026-11-27T12:00:00Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();

describe('relativeTime', () => {
  it('names the distance in its largest whole unit, singular or plural, past or future', () => {
    expect(relativeTime(ago(3), NOW)).toBe('just now');
    expect(relativeTime(ago(42), NOW)).toBe('42 seconds ago');
    expect(relativeTime(ago(60), NOW)).toBe('1 minute ago');
    expect(relativeTime(ago(59.6), NOW)).toBe('1 minute ago');
    expect(relativeTime(ago(5 * 3600), NOW)).toBe('5 hours ago');
    expect(relativeTime(ago(-2 * 86400), NOW)).toBe('in 2 days');
    expect(relativeTime(ago(400 * 86400), NOW)).toBe('1 year ago');
  });

  it('gives back what is not a time as it is', () => {
    expect(relativeTime('not a time', NOW)).toBe('not a time');
  });
});

describe('Time', () => {
  it('carries its UTC form for hover and focus, and says when there is no time', () => {
    const { container } = render(<Time value="2026-11-27T11:55:00.000Z" relative />);
    const time = container.querySelector('time')!;
    expect(time.getAttribute('datetime')).toBe('2026-11-27T11:55:00.000Z');
    expect(time.dataset.utc).toBe('2026-11-27T11:55:00Z (UTC)');
    expect(time.tabIndex).toBe(0);
    expect(utcLabel(new Date('2026-11-27T11:55:00.250Z'))).toBe('2026-11-27T11:55:00.250Z (UTC)');
    expect(render(<Time value={null} />).container.textContent).toBe('never');
  });
});
