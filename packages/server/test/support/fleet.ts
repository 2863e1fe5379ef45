/**
 * Test fixtures for releases, bundle overrides and update checks: cohorts, devices and bundles
 * (with artifacts, versions and binaries, signed or not) of an organization.
 *
 * ADAPTER (temporary): the cohorts/devices routes (main) and bundles/binaries routes (branch
 * `binaries`) were not merged when these tests were written, so the rows are inserted directly
 * with the same columns those services write. Swap to their API calls once merged.
 */
import { randomUUID } from 'node:crypto';
import { artifacts, artifactVersions } from '../../src/artifacts/schema';
import { binaries } from '../../src/binaries/schema';
import { bundleArtifactVersions, bundles } from '../../src/bundles/schema';
import { cohorts } from '../../src/cohorts/schema';
import type { Database } from '../../src/db/connection';
import { devices } from '../../src/devices/schema';
import { products } from '../../src/products/schema';

const prn = (organizationId: string, type: string, id: string) => `prn:1:${organizationId}:${type}:${id}`;

export interface Fleet {
  organizationId: string;
  productId: string;
  cohort(name?: string): Promise<{ id: string; prn: string }>;
  device(options?: { cohortId?: string | null; tags?: string[] | null; quarantined?: boolean; target?: string | null }): Promise<{ id: string; prn: string }>;
  /** Many devices in one statement (the concurrency tests need thousands). */
  devices(count: number, cohortId: string): Promise<{ id: string; prn: string }[]>;
  bundle(options?: { signed?: boolean; name?: string }): Promise<{ id: string; prn: string; binaryId: string }>;
}

export async function createFleet(db: Database, organizationId: string): Promise<Fleet> {
  const productId = randomUUID();
  await db.insert(products).values({ id: productId, organizationId, name: `product-${productId.slice(0, 8)}` });
  let serial = 0;
  return {
    organizationId,
    productId,
    async cohort(name = 'cohort') {
      const id = randomUUID();
      await db.insert(cohorts).values({ id, organizationId, productId, name });
      return { id, prn: prn(organizationId, 'cohort', id) };
    },
    async device({ cohortId = null, tags = null, quarantined = false, target = 'aarch64-unknown-linux-gnu' } = {}) {
      const id = randomUUID();
      await db.insert(devices).values({ id, organizationId, productId, cohortId, identifier: `device-${id}`, tags, quarantined, target });
      return { id, prn: prn(organizationId, 'device', id) };
    },
    async devices(count, cohortId) {
      const rows = Array.from({ length: count }, () => {
        const id = randomUUID();
        return { id, organizationId, productId, cohortId, identifier: `device-${id}`, target: 'aarch64-unknown-linux-gnu' };
      });
      for (let i = 0; i < rows.length; i += 1000) await db.insert(devices).values(rows.slice(i, i + 1000));
      return rows.map((row) => ({ id: row.id, prn: prn(organizationId, 'device', row.id) }));
    },
    async bundle({ signed = true, name = `bundle-${++serial}` } = {}) {
      const artifactId = randomUUID();
      const versionId = randomUUID();
      const binaryId = randomUUID();
      const bundleId = randomUUID();
      await db.insert(artifacts).values({ id: artifactId, organizationId, name: `rootfs-${artifactId.slice(0, 8)}` });
      await db.insert(artifactVersions).values({ id: versionId, organizationId, artifactId, version: '1.0.0' });
      await db.insert(binaries).values({
        id: binaryId,
        organizationId,
        artifactVersionId: versionId,
        target: 'aarch64-unknown-linux-gnu',
        hash: 'a'.repeat(64),
        size: 1024,
        customMetadata: { board: 'imx8mp' },
        state: signed ? 'signed' : 'signable',
      });
      await db.insert(bundles).values({ id: bundleId, organizationId, name });
      await db.insert(bundleArtifactVersions).values({ bundleId, artifactVersionId: versionId, index: 0 });
      return { id: bundleId, prn: prn(organizationId, 'bundle', bundleId), binaryId };
    },
  };
}
