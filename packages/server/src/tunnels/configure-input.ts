/**
 * What a device offers when it configures a tunnel, checked and normalised: CIDR blocks it can
 * spare for the tunnel's two addresses (at least two distinct usable ones), port ranges for the
 * server's proxy port, and its WireGuard public key. Every failing field is reported at once.
 */
import { validationError, type FieldProblem } from '../http/errors';
import { countDistinctUsable, parseCidr, type CidrBlock } from './cidr';
import { parsePortRange, type PortRange } from './port-ranges';
import { isWireguardKey } from './wireguard-keys';

export interface ConfigureInput {
  cidr_blocks: string[];
  port_ranges: string[];
  device_proxy_port: number;
  device_public_key: string;
}

export interface CheckedConfigureInput {
  cidrBlocks: CidrBlock[];
  portRanges: PortRange[];
  deviceProxyPort: number;
  devicePublicKey: string;
}

/** Parses each item; the index of the first bad one becomes a problem on `field`. */
function parseEach<T>(field: string, items: string[], parse: (text: string) => T | null, reason: string, problems: FieldProblem[]): T[] {
  const parsed = items.map(parse);
  const bad = parsed.findIndex((item) => item === null);
  if (bad >= 0) problems.push({ field, reason, index: bad, value: items[bad] });
  return parsed.filter((item): item is T => item !== null);
}

/** CIDR blocks as a list of strings (also the admin's allowlist), or the problems with them. */
export function parseCidrList(field: string, items: string[], problems: FieldProblem[]): CidrBlock[] {
  return parseEach(field, items, parseCidr, 'invalid_cidr', problems);
}

export function checkConfigureInput(input: ConfigureInput): CheckedConfigureInput {
  const problems: FieldProblem[] = [];
  const cidrBlocks = parseCidrList('cidr_blocks', input.cidr_blocks, problems);
  if (cidrBlocks.length === input.cidr_blocks.length && countDistinctUsable(cidrBlocks, 2) < 2) {
    problems.push({ field: 'cidr_blocks', reason: 'too_few_addresses', min: 2 });
  }
  const portRanges = parseEach('port_ranges', input.port_ranges, parsePortRange, 'invalid_port_range', problems);
  if (!isWireguardKey(input.device_public_key)) problems.push({ field: 'device_public_key', reason: 'invalid_key' });
  if (problems.length > 0) throw validationError(problems);
  return { cidrBlocks, portRanges, deviceProxyPort: input.device_proxy_port, devicePublicKey: input.device_public_key };
}
