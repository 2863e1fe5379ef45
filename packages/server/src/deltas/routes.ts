/** Admin API of deltas: per binary, the deltas made (or being made) to it from earlier binaries. */
import { Type } from 'typebox';
import { BinarySize, getBinary, Sha256Hex } from './neighbours';
import { resourcePrn } from '../core/prn';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { Nullable, Prn, PrnParams, STANDARD_ERRORS } from '../http/schemas';
import { timestampsOf } from '../http/wire-fields';
import { deltasOf } from './enqueue';
import { DELTA_STATES, type DeltaState } from './schema';

const BinaryDelta = Type.Object({
  base_binary_prn: Prn('The binary devices rebuild from (what they run).'),
  target_binary_prn: Prn('The binary the delta rebuilds.'),
  state: Type.Unsafe<DeltaState>({ type: 'string', enum: [...DELTA_STATES], description: 'pending (being made), ready (offered to devices), not_smaller (not offered) or failed.' }),
  size: Nullable(BinarySize('Bytes a device downloads for this delta; null until made.')),
  hash: Nullable(Sha256Hex('SHA-256 of the delta; null until ready.')),
  target_size: BinarySize('Bytes of the full binary, for comparison.'),
  error: Nullable(Type.String({ description: 'Why making the delta failed.' })),
  inserted_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const deltaRoutes: ContextRoutes = (app, { db }) => {
  app.get('/binaries/:prn/deltas', {
    config: { role: 'read' },
    schema: {
      tags: ['binaries'],
      summary: "List a binary's deltas",
      description: 'The deltas to this binary from the binaries of its cohorts\' recent releases (made when a release is created), with their state and size beside the full binary\'s.',
      params: PrnParams('Resource name of the binary.'),
      response: { 200: Type.Object({ binary_deltas: Type.Array(BinaryDelta) }, { description: 'The deltas, newest first.' }), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const actor = actorOf(request);
      const binary = await getBinary(db, actor, request.params.prn);
      const rows = await deltasOf(db, actor.organizationId, binary.id);
      return {
        binary_deltas: rows.map((row) => ({
          base_binary_prn: resourcePrn(row.organizationId, 'binary', row.baseBinaryId),
          target_binary_prn: resourcePrn(row.organizationId, 'binary', row.targetBinaryId),
          state: row.state,
          size: row.size,
          hash: row.state === 'ready' ? row.hash : null,
          target_size: binary.size,
          error: row.error,
          ...timestampsOf(row),
        })),
      };
    },
  });
};
