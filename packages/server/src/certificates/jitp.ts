/**
 * Just-in-time provisioning settings of a CA certificate: `{description, tags, product_name,
 * cohort_prn?, target?}` on the wire. Checked when they are set (the product must exist in the
 * organization, the cohort must belong to it) and looked up again when a device is provisioned,
 * because the product may have been renamed or archived since.
 */
import { getCohort } from '../cohorts/service';
import type { Executor } from '../db/connection';
import type { Actor } from '../http/actor';
import { invalidField } from '../http/errors';
import { resourcePrn } from '../core/prn';
import { findProductByName } from '../products/service';
import type { JitpSettings } from './schema';

export interface JitpInput {
  description: string;
  tags: string[];
  product_name: string;
  cohort_prn?: string | null;
  target?: string | null;
}

export async function resolveJitpSettings(tx: Executor, actor: Actor, input: JitpInput): Promise<JitpSettings> {
  const product = await findProductByName(tx, actor.organizationId, input.product_name);
  if (!product) throw invalidField('jitp.product_name', 'not_found');
  let cohortId: string | null = null;
  if (input.cohort_prn) {
    const cohort = await getCohort(tx, actor, input.cohort_prn, 'jitp.cohort_prn');
    if (cohort.productId !== product.id) throw invalidField('jitp.cohort_prn', 'not_in_product');
    cohortId = cohort.id;
  }
  return { description: input.description, tags: input.tags, productName: product.name, cohortId, target: input.target ?? null };
}

export function jitpToWire(organizationId: string, settings: JitpSettings | null) {
  if (!settings) return null;
  return {
    description: settings.description,
    tags: settings.tags,
    product_name: settings.productName,
    cohort_prn: settings.cohortId === null ? null : resourcePrn(organizationId, 'cohort', settings.cohortId),
    target: settings.target,
  };
}
