/**
 * The binary state machine (site/docs/canopy-core/guides/binary-management.md), as data. Which
 * transitions a client may ask for by PATCH; the server's own moves (hashing -> signable or back
 * to hashable, signable -> signed) happen elsewhere and never through this table.
 *
 *   uploadable -> hashable              client: upload finished
 *   hashable   -> hashing               client: please verify
 *   hashable | hashing | signable -> uploadable   reset: parts dropped, revision + 1
 *   any        -> destroyed             bytes deleted, record kept, final
 *   same state -> same state            no-op (a PATCH to signed on a signed binary, say)
 */
import { conflict, type ApiError } from '../http/errors';
import type { BinaryState } from './schema';

export type Transition = 'noop' | 'finish_upload' | 'start_hashing' | 'reset' | 'destroy';

const BY_CLIENT: Partial<Record<BinaryState, Partial<Record<BinaryState, Transition>>>> = {
  uploadable: { hashable: 'finish_upload' },
  hashable: { hashing: 'start_hashing', uploadable: 'reset' },
  hashing: { uploadable: 'reset' },
  signable: { uploadable: 'reset' },
};

export function invalidTransition(from: BinaryState, to: BinaryState, detail: Record<string, unknown> = {}): ApiError {
  return conflict('invalid_state_transition', { current_state: from, requested_state: to, ...detail });
}

/** The transition a client's PATCH asks for; 409 `invalid_state_transition` when there is none. */
export function clientTransition(from: BinaryState, to: BinaryState): Transition {
  if (from === 'destroyed') {
    if (to === 'destroyed') return 'noop';
    throw invalidTransition(from, to, { reason: 'destroyed_is_final' });
  }
  if (to === from) return 'noop';
  if (to === 'destroyed') return 'destroy';
  const transition = BY_CLIENT[from]?.[to];
  if (!transition) throw invalidTransition(from, to);
  return transition;
}
