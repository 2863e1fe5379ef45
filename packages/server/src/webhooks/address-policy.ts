/**
 * Which IP addresses a webhook may be delivered to. Checked on the addresses DNS answered, not on
 * the url's text, and the connection then goes to exactly the checked address (outbound.ts), so
 * a name that resolves to an internal service cannot be used to reach it (SSRF).
 */
import { BlockList, isIP } from 'node:net';

function blockList(ranges: [string, number, 'ipv4' | 'ipv6'][]): BlockList {
  const list = new BlockList();
  for (const [network, prefix, family] of ranges) list.addSubnet(network, prefix, family);
  return list;
}

/** Cloud metadata endpoints: refused even when private addresses are allowed. */
const METADATA = blockList([
  ['169.254.169.254', 32, 'ipv4'],
  ['fd00:ec2::254', 128, 'ipv6'],
]);

/** Addresses that are not the public internet: private, loopback, link-local, CGNAT, reserved. */
const NON_PUBLIC = blockList([
  ['0.0.0.0', 8, 'ipv4'], // "this network"
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // CGNAT
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'], // link-local, includes metadata
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved and broadcast
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'], // unique local, includes fd00:ec2::254
  ['fe80::', 10, 'ipv6'], // link-local
  ['ff00::', 8, 'ipv6'], // multicast
]);

export type AddressVerdict = 'allowed' | 'private' | 'metadata' | 'invalid';

/**
 * IPv4 written inside IPv6 (IPv4-mapped ::ffff:a.b.c.d and NAT64 64:ff9b::a.b.c.d, dotted or
 * hex) is judged as the IPv4 it reaches.
 */
function embeddedIpv4(address: string): string | null {
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const high = parseInt(hex[1], 16);
  const low = parseInt(hex[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/**
 * Verdicts by (allowPrivate, address): judging is a pure function of the two, so a remembered
 * verdict is the verdict (nothing to invalidate); it spares the parse and range checks that every
 * request's freshly resolved address goes through. Bounded: emptied when full.
 */
const verdicts = new Map<string, AddressVerdict>();
const MAX_VERDICTS = 4096;

export function judgeAddress(address: string, allowPrivate: boolean): AddressVerdict {
  const key = `${allowPrivate ? 'p' : 'n'} ${address}`;
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    verdict = judgeAddressUncached(address, allowPrivate);
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    verdicts.set(key, verdict);
  }
  return verdict;
}

function judgeAddressUncached(address: string, allowPrivate: boolean): AddressVerdict {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const mapped = embeddedIpv4(bare);
  const ip = mapped ?? bare;
  const version = isIP(ip);
  if (version === 0) return 'invalid';
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (METADATA.check(ip, family)) return 'metadata';
  if (!allowPrivate && NON_PUBLIC.check(ip, family)) return 'private';
  return 'allowed';
}
