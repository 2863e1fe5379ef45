/**
 * Port ranges as the tunnel API and settings write them: `"51820-51830"` or a single `"22"`,
 * ports 1..65535, low <= high. Parsing answers null for anything else.
 */
export interface PortRange {
  low: number;
  high: number;
}

function port(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const value = Number(text);
  return value >= 1 && value <= 65535 ? value : null;
}

export function parsePortRange(text: string): PortRange | null {
  const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(text);
  if (!match) return null;
  const low = port(match[1]);
  const high = match[2] === undefined ? low : port(match[2]);
  if (low === null || high === null || low > high) return null;
  return { low, high };
}

export function formatPortRange(range: PortRange): string {
  return range.low === range.high ? String(range.low) : `${range.low}-${range.high}`;
}

/** The first port of the ranges, in the order given, that is not in `used`; null when all are. */
export function firstFreePort(ranges: PortRange[], used: ReadonlySet<number>): number | null {
  for (const range of ranges) {
    for (let p = range.low; p <= range.high; p++) if (!used.has(p)) return p;
  }
  return null;
}
