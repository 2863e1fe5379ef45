/** A moment in the user's time zone (relative when asked), with its UTC form on hover and focus. */
import classes from './Time.module.css';

// Written out rather than Intl.RelativeTimeFormat: the console's words are English, and making
// that formatter loads locale data that cost the fleet view's first render about 30 ms.
const STEPS: [unit: string, size: number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 30],
  ['month', 12],
  ['year', Infinity],
];

/** "5 minutes ago", "in 2 hours", "just now": the distance from `now` in its largest whole unit. */
export function relativeTime(iso: string, now = Date.now()): string {
  let value = (new Date(iso).getTime() - now) / 1000;
  if (Number.isNaN(value)) return iso;
  if (Math.abs(value) < 10) return 'just now';
  for (const [unit, size] of STEPS) {
    const whole = Math.round(value);
    if (Math.abs(whole) < size) {
      const amount = `${Math.abs(whole)} ${unit}${Math.abs(whole) === 1 ? '' : 's'}`;
      return whole < 0 ? `${amount} ago` : `in ${amount}`;
    }
    value /= size;
  }
  return iso;
}

/** `2026-11-27T12:00:00Z (UTC)`: the ISO form without milliseconds that are zero. */
export const utcLabel = (date: Date) => `${date.toISOString().replace('.000', '')} (UTC)`;

export function Time({ value, relative = false, empty = 'never' }: { value: string | null | undefined; relative?: boolean; empty?: string }) {
  if (!value) return <span>{empty}</span>;
  const date = new Date(value);
  return (
    <time dateTime={value} tabIndex={0} className={classes.time} data-utc={utcLabel(date)}>
      {relative ? relativeTime(value) : date.toLocaleString()}
    </time>
  );
}
