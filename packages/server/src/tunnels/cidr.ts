/**
 * IPv4 and IPv6 CIDR blocks as the tunnel API takes them (`10.8.0.0/30`, `fd00:1::/126`), and the
 * usable host addresses inside them. Addresses are BigInts so both families share one code path.
 * Parsing never throws: it answers null for anything that is not a CIDR block.
 */
import { isIP } from 'node:net';

export type IpFamily = 4 | 6;

export interface CidrBlock {
  family: IpFamily;
  /** The network address (host bits cleared). */
  network: bigint;
  prefix: number;
}

const BITS: Record<IpFamily, number> = { 4: 32, 6: 128 };

function parseIpv4(text: string): bigint {
  return text.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

function parseIpv6(text: string): bigint {
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes its two 16-bit groups.
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  let body = text;
  if (v4Tail) {
    const v4 = parseIpv4(v4Tail[1]);
    body = `${text.slice(0, v4Tail.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = body.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups];
  return groups.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n);
}

/** A single address, or null. */
export function parseIp(text: string): { family: IpFamily; value: bigint } | null {
  const family = isIP(text);
  if (family === 4) return { family, value: parseIpv4(text) };
  if (family === 6 && !text.includes('%')) return { family, value: parseIpv6(text) };
  return null;
}

export function formatIp(family: IpFamily, value: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // RFC 5952: compress the longest run (at least two) of zero groups, the first one on a tie.
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length && j - i >= 2) best = { start: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

/**
 * `address/prefix`, or null. Host bits may be set (`10.0.0.7/24` is the block `10.0.0.0/24`),
 * as `ip route` and most tools accept it; the block is stored in its normal form.
 */
export function parseCidr(text: string): CidrBlock | null {
  const match = /^([^/\s]+)\/(\d{1,3})$/.exec(text);
  if (!match) return null;
  const ip = parseIp(match[1]);
  const prefix = Number(match[2]);
  if (!ip || prefix > BITS[ip.family] || String(prefix) !== match[2]) return null;
  const hostBits = BigInt(BITS[ip.family] - prefix);
  return { family: ip.family, network: (ip.value >> hostBits) << hostBits, prefix };
}

export function formatCidr(block: CidrBlock): string {
  return `${formatIp(block.family, block.network)}/${block.prefix}`;
}

/**
 * The addresses a host may take, in order: IPv4 leaves out the network and broadcast
 * addresses (except in /31 and /32, RFC 3021); IPv6 leaves out the subnet-router anycast
 * address (except in /127 and /128, RFC 6164). Lazy, because an IPv6 block is astronomically big.
 */
export function* usableAddresses(block: CidrBlock): Generator<string> {
  const size = 1n << BigInt(BITS[block.family] - block.prefix);
  const small = size <= 2n;
  const first = small ? 0n : 1n;
  const last = small || block.family === 6 ? size - 1n : size - 2n;
  for (let offset = first; offset <= last; offset++) yield formatIp(block.family, block.network + offset);
}

/** How many distinct usable addresses the blocks hold together, counting no further than `cap`. */
export function countDistinctUsable(blocks: CidrBlock[], cap: number): number {
  const seen = new Set<string>();
  for (const block of blocks) {
    // Only `cap` new addresses are needed, and at most `seen.size` of them can repeat earlier ones.
    let budget = cap + seen.size;
    for (const address of usableAddresses(block)) {
      seen.add(address);
      if (seen.size >= cap || --budget <= 0) break;
    }
    if (seen.size >= cap) break;
  }
  return seen.size;
}

/** The host route for one address: `/32` or `/128`. */
export function hostRoute(address: string): string {
  return `${address}/${isIP(address) === 6 ? 128 : 32}`;
}
