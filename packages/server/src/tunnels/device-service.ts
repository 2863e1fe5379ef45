/**
 * Tunnels as a device sees them through the device API: its requested and open tunnels, the
 * configure call that opens one, and closing one. A tunnel of another device (or organization)
 * is indistinguishable from a missing one.
 */
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { isUniqueViolation } from '../db/errors';
import type { Database, Executor } from '../db/connection';
import type { AuthenticatedDevice } from '../http/device-request';
import { conflict, invalidField, notFound } from '../http/errors';
import { listOwnedRows } from '../read-path/owned-rows';
import { resourceIdFromPrn } from '../core/prn';
import type { Platform } from '../platform';
import { allocateServerSide } from './allocation';
import { checkConfigureInput, type ConfigureInput } from './configure-input';
import { bringUpConfiguredTunnel } from './data-plane/service';
import { recordTunnelEvent } from './events';
import { closeTunnel, lockTunnel, requireLive } from './lifecycle';
import { tunnels } from './schema';
import type { TunnelRow } from './wire';
import { generateWireguardKeyPair } from './wireguard-keys';

/** Attempts at opening when a unique index refuses an allocation (only if something bypassed the lock). */
const OPEN_ATTEMPTS = 3;
/** How long a configure answer waits for the server end; longer gains nothing over WireGuard's own 5 s retry. */
const SERVER_END_WAIT_MS = 5000;

function ownTunnel(device: AuthenticatedDevice, prn: unknown): SQL {
  const id = resourceIdFromPrn(prn, 'tunnel', device.organizationId);
  if (!id) return sql`false`;
  return and(eq(tunnels.id, id), eq(tunnels.organizationId, device.organizationId), eq(tunnels.deviceId, device.row.id))!;
}

async function lockOwnTunnel(tx: Executor, device: AuthenticatedDevice, prn: string) {
  const locked = await lockTunnel(tx, ownTunnel(device, prn));
  if (!locked) throw notFound('tunnel', prn);
  return locked;
}

/** Only requested and open tunnels that have not expired: the ones the device should act on. */
export function listDeviceTunnels(db: Executor, device: AuthenticatedDevice, query: { page?: string; limit?: number }) {
  return listOwnedRows(
    db,
    tunnels,
    device.organizationId,
    { page: query.page, limit: query.limit, order: 'asc' },
    {},
    eq(tunnels.deviceId, device.row.id),
    inArray(tunnels.state, ['requested', 'open']),
    sql`${tunnels.expiresAt} > now()`,
  );
}

/**
 * requested -> open. The server side is chosen here: a fresh X25519 key pair (the private key
 * sealed at rest), the two tunnel addresses from the device's blocks, the proxy port from its
 * ranges, and the tunnel endpoint from the settings and the port allocator. Where this process
 * runs the data plane, the server's WireGuard end and proxy are up before the answer goes out.
 */
export async function configureDeviceTunnel(platform: Platform, device: AuthenticatedDevice, prn: string, input: ConfigureInput): Promise<TunnelRow> {
  const opened = await openInTransaction(platform, device, prn, checkConfigureInput(input));
  // The server end first, then the answer: the device's first handshake, sent as soon as its
  // interface is up, then finds the server's peer instead of waiting out REKEY_TIMEOUT (5 s).
  await bringUpConfiguredTunnel(platform, opened.id, SERVER_END_WAIT_MS);
  return opened;
}

async function openInTransaction(platform: Platform, device: AuthenticatedDevice, prn: string, offer: ReturnType<typeof checkConfigureInput>): Promise<TunnelRow> {
  const { config, secrets } = platform;
  for (let attempt = 1; ; attempt++) {
    try {
      return await platform.db.transaction(async (tx) => {
        const locked = await lockOwnTunnel(tx, device, prn);
        if (locked.row.state !== 'requested') throw conflict('invalid_state_transition', { from: locked.row.state, to: 'open' });
        requireLive(locked, 'open');
        const side = await allocateServerSide(tx, config.tunnelPortRanges, offer.cidrBlocks);
        const keys = generateWireguardKeyPair();
        const [opened] = await tx
          .update(tunnels)
          .set({
            state: 'open',
            deviceProxyIpAddress: side.deviceProxyIpAddress,
            deviceProxyPort: offer.deviceProxyPort,
            devicePublicKey: offer.devicePublicKey,
            serverProxyIpAddress: side.serverProxyIpAddress,
            // The first port the device offers; it is a port on the server's own tunnel address.
            serverProxyPort: offer.portRanges[0].low,
            serverPublicKey: keys.publicKey,
            serverPrivateKeySealed: secrets.seal(keys.privateKey),
            serverTunnelIpAddress: config.tunnelServerIpAddress,
            serverTunnelPort: side.serverTunnelPort,
            updatedAt: sql`now()`,
          })
          .where(eq(tunnels.id, locked.row.id))
          .returning();
        await recordTunnelEvent(tx, 'opened', opened, device.prn);
        return opened;
      });
    } catch (error) {
      if (attempt < OPEN_ATTEMPTS && isUniqueViolation(error)) continue;
      throw error;
    }
  }
}

/** requested|open -> closed, by the device; closing a closed tunnel changes nothing. */
export async function closeDeviceTunnel(db: Database, device: AuthenticatedDevice, prn: string, changes: { state: string; close_reason?: string | null }) {
  if (changes.state !== 'closed') throw invalidField('state', 'invalid_transition', { allowed: ['closed'] });
  return db.transaction(async (tx) => {
    const locked = await lockOwnTunnel(tx, device, prn);
    if (locked.row.state === 'closed') return locked.row;
    return closeTunnel(tx, locked.row, { subtype: 'closed', reason: changes.close_reason ?? 'closed_by_device', actorPrn: device.prn });
  });
}
