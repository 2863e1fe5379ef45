/**
 * Which IP addresses a webhook may be delivered to. Checked on the addresses DNS answered, not on
 * the url's text, and the connection then goes to exactly the checked address (outbound.ts), so
 * a name that resolves to an internal service cannot be used to reach it (SSRF).
 *
 * The rule is an allow-list in effect: IPv4 outside the IANA special-purpose ranges, IPv6 inside
 * global unicast (2000::/3) and outside its special-purpose ranges; every IPv6 form that carries
 * an IPv4 address is judged as that IPv4 (embedded-ipv4.ts).
 */
import { BlockList, isIP } from 'node:net';
import { embeddedIpv4, type EmbeddedIpv4 } from './embedded-ipv4';

function blockList(family: 'ipv4' | 'ipv6', ranges: [string, number][]): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, family);
  return list;
}

/**
 * Refused even when private addresses are allowed: cloud instance services. All of IPv4
 * link-local, where every cloud puts them (IMDS 169.254.169.254, AWS DNS .253, ECS/EKS
 * credentials 169.254.170.x, Tencent 169.254.0.23), and the ones elsewhere.
 */
const METADATA_V4 = blockList('ipv4', [
  ['169.254.0.0', 16],
  ['100.100.100.200', 32], // Alibaba Cloud metadata
  ['168.63.129.16', 32], // Azure wire server (a public address, answered by the host)
  ['192.0.0.192', 32], // Oracle Cloud legacy metadata
]);
const METADATA_V6 = blockList('ipv6', [
  ['fd00:ec2::', 64], // AWS: metadata ::254, DNS ::253, time ::123, EKS credentials ::23
  ['fd20:ce::254', 128], // Google Cloud metadata
  ['fe80::', 10], // link-local, as 169.254.0.0/16
]);

/** IANA IPv4 special-purpose ranges that are not globally reachable, plus multicast. */
const NON_PUBLIC_V4 = blockList('ipv4', [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments (DS-Lite, NAT64 discovery, dummy)
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and broadcast
]);
/** Globally reachable entries of the registries inside the ranges above: PCP and TURN anycast. */
const GLOBAL_V4 = blockList('ipv4', [
  ['192.0.0.9', 32],
  ['192.0.0.10', 32],
]);

/**
 * Outside global unicast (loopback, unspecified, discard 100::/64, ULA fc00::/7, site-local
 * fec0::/10, multicast, SRv6 5f00::/16, unassigned), and the registry's ranges inside it.
 */
const NON_PUBLIC_V6 = blockList('ipv6', [
  ['::', 3],
  ['4000::', 2],
  ['8000::', 1],
  ['2001::', 23], // IETF protocol assignments (benchmarking 2001:2::/48, ORCHID)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
]);
const GLOBAL_V6 = blockList('ipv6', [
  ['2001:1::1', 128], // PCP anycast
  ['2001:1::2', 128], // TURN anycast
  ['2001:1::3', 128], // DNS-SD service registration anycast
  ['2001:3::', 32], // AMT
  ['2001:4:112::', 48], // AS112
  ['2001:20::', 28], // ORCHIDv2
  ['2001:30::', 28], // drone remote ID
]);

export type AddressVerdict = 'allowed' | 'private' | 'metadata' | 'invalid';

const SEVERITY: Record<AddressVerdict, number> = { allowed: 0, private: 1, metadata: 2, invalid: 3 };
const worst = (verdicts: AddressVerdict[]) => verdicts.reduce((a, b) => (SEVERITY[b] > SEVERITY[a] ? b : a), 'allowed');

function judgeIpv4(ip: string, allowPrivate: boolean): AddressVerdict {
  if (METADATA_V4.check(ip, 'ipv4')) return 'metadata';
  if (!allowPrivate && NON_PUBLIC_V4.check(ip, 'ipv4') && !GLOBAL_V4.check(ip, 'ipv4')) return 'private';
  return 'allowed';
}

function judgeEmbedded(embedded: EmbeddedIpv4, allowPrivate: boolean): AddressVerdict {
  const verdicts = embedded.candidates.map((ip) => judgeIpv4(ip, allowPrivate));
  if (!allowPrivate && embedded.rangeIsLocal) verdicts.push('private');
  return worst(verdicts);
}

function judgeIpv6(ip: string, allowPrivate: boolean): AddressVerdict {
  const embedded = embeddedIpv4(ip);
  if (embedded) return judgeEmbedded(embedded, allowPrivate);
  if (METADATA_V6.check(ip, 'ipv6')) return 'metadata';
  if (!allowPrivate && NON_PUBLIC_V6.check(ip, 'ipv6') && !GLOBAL_V6.check(ip, 'ipv6')) return 'private';
  return 'allowed';
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
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const version = isIP(ip);
  if (version === 4) return judgeIpv4(ip, allowPrivate);
  if (version === 6) return judgeIpv6(ip, allowPrivate);
  return 'invalid';
}
