import { bigint, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { binaries } from '../binaries/schema';
import { id, insertedAt, organizationId, updatedAt } from '../db/columns';

export const DELTA_STATES = ['pending', 'ready', 'not_smaller', 'failed'] as const;
export type DeltaState = (typeof DELTA_STATES)[number];

/**
 * A delta from a base binary (what devices run) to a target binary (a new release's), made by
 * the `binary.delta` job (decision 009). `ready` rows have their bytes at `blob_key`; a delta no
 * smaller than the full binary is kept as `not_smaller` (so it is not made again) and never offered.
 */
export const binaryDeltas = pgTable(
  'binary_deltas',
  {
    id: id(),
    organizationId: organizationId(),
    baseBinaryId: uuid('base_binary_id').notNull().references(() => binaries.id, { onDelete: 'cascade' }),
    targetBinaryId: uuid('target_binary_id').notNull().references(() => binaries.id, { onDelete: 'cascade' }),
    state: text('state').$type<DeltaState>().notNull().default('pending'),
    blobKey: text('blob_key'),
    /** Bytes of the delta (the tar), and its SHA-256 (lowercase hex). */
    size: bigint('size', { mode: 'number' }),
    hash: text('hash'),
    error: text('error'),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('binary_deltas_pair').on(t.baseBinaryId, t.targetBinaryId), index('binary_deltas_target').on(t.targetBinaryId)],
);
