/**
 * Create calls of artifacts and artifact versions (and later binaries and bundles) accept an
 * optional caller-chosen `id` (UUID), so that a client can name a resource before it exists and
 * retry a create safely: the prn then ends in that id, and a second create with it is a 409.
 */
import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import { isUniqueViolation } from '../db/errors';
import { conflict } from './errors';
import type { PrnType } from '../core/prn';

export const CallerId = Type.Optional(
  Type.String({
    // A pattern, not format 'uuid': that format also admits a `urn:uuid:` prefix.
    pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
    description: 'Optional id of your choosing (a UUID); the prn then ends in it. 409 `already_exists` when it is taken.',
    examples: ['3d5e7f90-1a2b-4c3d-8e4f-5a6b7c8d9e0f'],
  }),
);

/** The id a new row gets: the caller's, lower-cased like every id we print, or a fresh one. */
export function idFor(callerId: string | undefined): string {
  return callerId?.toLowerCase() ?? randomUUID();
}

/** Inserts with `insert`, turning a clash on the table's primary key into 409 `already_exists`. */
export async function insertWithCallerId<T>(type: PrnType, table: string, id: string, insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (error) {
    if (isUniqueViolation(error, `${table}_pkey`)) throw conflict('already_exists', { resource: type, id });
    throw error;
  }
}
