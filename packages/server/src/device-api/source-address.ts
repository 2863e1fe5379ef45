/**
 * The source a connection counts against in the per-address handshake limits: an IPv4 address
 * (an IPv4-mapped IPv6 one included), or the /64 an IPv6 address is in. One host may hold a whole
 * /64, so keying on the full IPv6 address would let it pose as countless sources; a /64 is one
 * site, as a NAT'd IPv4 address is.
 */
import { isIPv4, isIPv6 } from 'node:net';

export function sourceAddressKey(address: string): string {
  const bare = address.replace(/%.*$/, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return mapped[1];
  if (!isIPv6(bare)) return bare;
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, as lowercase hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  let text = address;
  if (dotted && isIPv4(dotted[1])) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${address.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':') : []);
  const groups =
    tail === undefined ? part(head) : [...part(head), ...Array<string>(8 - part(head).length - part(tail).length).fill('0'), ...part(tail)];
  return groups.map((g) => parseInt(g, 16).toString(16));
}
