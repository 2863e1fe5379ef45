/**
 * IPv4 and IPv6 CIDR blocks, just enough to keep the tunnel's addresses off the device's own
 * networks: parse, and whether two blocks overlap.
 */
import { isIP } from 'node:net';

export interface Cidr {
  version: 4 | 6;
  /** The network address as a number (host bits cleared). */
  network: bigint;
  prefix: number;
}

function ipToBigInt(address: string, version: 4 | 6): bigint {
  if (version === 4) return address.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
  // Expand "::" and an embedded IPv4 tail into eight 16-bit groups.
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = ipToBigInt(v4[1], 4);
    text = `${text.slice(0, -v4[1].length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail === null ? [] : tail ? tail.split(':') : [];
  const groups = tail === null ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((n, group) => (n << 16n) | BigInt(parseInt(group, 16)), 0n);
}

/** `10.250.0.0/16`, `fd00::/64`; null for anything else. Host bits are cleared. */
export function parseCidr(text: string): Cidr | null {
  const match = /^([^/\s]+)\/(\d{1,3})$/.exec(text.trim());
  if (!match) return null;
  const kind = isIP(match[1]);
  if (kind !== 4 && kind !== 6) return null;
  const bits = kind === 4 ? 32 : 128;
  const prefix = Number(match[2]);
  if (prefix > bits) return null;
  const hostBits = BigInt(bits - prefix);
  const network = (ipToBigInt(match[1], kind) >> hostBits) << hostBits;
  return { version: kind, network, prefix };
}

export function overlaps(a: Cidr, b: Cidr): boolean {
  if (a.version !== b.version) return false;
  const bits = a.version === 4 ? 32 : 128;
  // Two blocks overlap when the shorter prefix contains the other's network.
  const prefix = Math.min(a.prefix, b.prefix);
  const shift = BigInt(bits - prefix);
  return a.network >> shift === b.network >> shift;
}
