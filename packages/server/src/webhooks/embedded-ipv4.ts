/**
 * The IPv4 addresses an IPv6 address carries, for every form that leads to one: IPv4-mapped
 * (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64 with the
 * well-known prefix (64:ff9b::/96) or the local-use one (64:ff9b:1::/48), 6to4 (2002::/16) and
 * Teredo (2001::/32). A webhook to such an address reaches that IPv4, so the policy judges it so.
 */

export interface EmbeddedIpv4 {
  /**
   * Every IPv4 it may lead to: a local-use NAT64 prefix may be any RFC 6052 length, so each
   * position is read; Teredo names both its server and (bits inverted) its client.
   */
  candidates: string[];
  /** The range itself is not globally reachable (local-use NAT64), whatever IPv4 it carries. */
  rangeIsLocal: boolean;
}

/** The 16 bytes of a valid IPv6 address (as net.isIP accepts it), dotted IPv4 tail included. */
function ipv6Bytes(address: string): number[] {
  const hexTail = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) => `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`);
  const [head, tail] = hexTail.split('::');
  const groupsOf = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const before = groupsOf(head);
  const after = groupsOf(tail);
  const groups = tail === undefined ? before : [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
  return groups.flatMap((group) => [group >> 8, group & 255]);
}

const zero = (bytes: number[], from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);

export function embeddedIpv4(address: string): EmbeddedIpv4 | null {
  const b = ipv6Bytes(address);
  const at = (...indexes: number[]) => indexes.map((i) => b[i]).join('.');
  const tail = at(12, 13, 14, 15);
  const found = (candidates: string[], rangeIsLocal = false): EmbeddedIpv4 => ({ candidates, rangeIsLocal });

  if (zero(b, 0, 10) && b[10] === 255 && b[11] === 255) return found([tail]); // mapped
  if (zero(b, 0, 8) && b[8] === 255 && b[9] === 255 && zero(b, 10, 12)) return found([tail]); // translated
  // Compatible, except :: and ::1, which are IPv6's own unspecified and loopback addresses.
  if (zero(b, 0, 12) && !(zero(b, 12, 15) && b[15] <= 1)) return found([tail]);
  const prefix32 = at(0, 1, 2, 3);
  if (prefix32 === '0.100.255.155') {
    if (zero(b, 4, 12)) return found([tail]); // 64:ff9b::/96
    if (b[4] === 0 && b[5] === 1) return found([at(6, 7, 9, 10), at(7, 9, 10, 11), at(9, 10, 11, 12), tail], true); // 64:ff9b:1::/48
  }
  if (b[0] === 0x20 && b[1] === 0x02) return found([at(2, 3, 4, 5)]); // 6to4
  if (prefix32 === '32.1.0.0') return found([at(4, 5, 6, 7), b.slice(12, 16).map((x) => x ^ 255).join('.')]); // Teredo
  return null;
}
