/**
 * The fields every organization-owned resource's wire shape shares
 * (site/docs/canopy-core/tools/admin-api.mdx, "Resource names"): its prn and its organization's
 * prn first, its two timestamps last. Spread them into a `*ToWire` object so each context writes
 * only the fields that are its own.
 */
import { organizationPrn, resourcePrn, type PrnType } from '../core/prn';
import { toRfc3339 } from '../core/time';

/** `{prn, organization_prn}` of a row of `type` owned by `row.organizationId`. */
export function ownedResourceFields(type: PrnType, row: { organizationId: string; id: string }) {
  return {
    prn: resourcePrn(row.organizationId, type, row.id),
    organization_prn: organizationPrn(row.organizationId),
  };
}

/** `{inserted_at, updated_at}` in the wire's RFC 3339 form. */
export function timestampsOf(row: { insertedAt: string | Date; updatedAt: string | Date }) {
  return {
    inserted_at: toRfc3339(row.insertedAt),
    updated_at: toRfc3339(row.updatedAt),
  };
}
