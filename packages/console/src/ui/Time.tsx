/** A moment in the user's time zone (relative when asked), with its UTC form on hover. */
import { Tooltip } from '@mantine/core';

const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 30],
  ['month', 12],
  ['year', Infinity],
];

export function relativeTime(iso: string, now = Date.now()): string {
  let value = (new Date(iso).getTime() - now) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(value) < size) return RELATIVE.format(Math.round(value), unit);
    value /= size;
  }
  return iso;
}

export function Time({ value, relative = false, empty = 'never' }: { value: string | null | undefined; relative?: boolean; empty?: string }) {
  if (!value) return <span>{empty}</span>;
  const date = new Date(value);
  const local = date.toLocaleString();
  return (
    <Tooltip label={`${date.toISOString().replace('.000', '')} (UTC)`} withArrow>
      <time dateTime={value} tabIndex={0}>
        {relative ? relativeTime(value) : local}
      </time>
    </Tooltip>
  );
}
