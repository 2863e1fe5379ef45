/**
 * One device API connection's state, as its requests see it: one value per connection, changed
 * only by the transitions below (connection-auth.ts drives them; connection-state.test.ts tests
 * them without Fastify or a database).
 *
 *   (new) ──begin──> admitting ──its outcome──> admitted | refused | unconfirmed
 *                       └──a database error──> (new): the next request tries again
 *   unconfirmed ──settle──> admitting ──> admitted | refused, or (new) when settling failed
 *   admitted ──read──> admitted, with the device row its last request read
 *
 *   - new: no request has asked yet (no state at all);
 *   - admitting: the connection's outcome is being decided (its first request's admission, or
 *     the settling of an unconfirmed one); later requests wait for `settled`;
 *   - unconfirmed: the first request's update check is to prove the admission in its own write
 *     (connection-admission.ts `speculate`); later requests wait for `settled`, and the first one
 *     settles it: proven, admitted the full way, or refused;
 *   - admitted: later requests are admitted again on the row the connection last read
 *     (`lastRead`), which is what a later update check resolves on;
 *   - refused: every later request gets the same 401.
 */
import type { RowRead } from '../certificates/verified-chains';
import { isUnconfirmed, type AdmittedConnection, type ConnectionOutcome, type UnconfirmedConnection } from './connection-admission';
import type { DeviceAuthFailure } from './failures';

/** A connection's outcome once settled: what its later requests are admitted by. */
export type SettledOutcome = AdmittedConnection | DeviceAuthFailure;

export type ConnectionState =
  | { kind: 'admitting'; settled: Promise<SettledOutcome> }
  | {
      kind: 'unconfirmed';
      outcome: UnconfirmedConnection;
      settled: Promise<SettledOutcome>;
      /** Hands later requests the settled outcome (settle() calls it). */
      resolve(result: SettledOutcome | Promise<SettledOutcome>): void;
    }
  | { kind: 'admitted'; connection: AdmittedConnection; lastRead: RowRead }
  | { kind: 'refused'; failure: DeviceAuthFailure };

/** The state of each open connection, keyed by its socket; a closed socket's state goes with it. */
export class ConnectionStates<Connection extends object = object> {
  private readonly states = new WeakMap<Connection, ConnectionState>();

  /** The connection's state; undefined while it is new. */
  get(connection: Connection): ConnectionState | undefined {
    return this.states.get(connection);
  }

  /**
   * new -> admitting: the first request's outcome is out. Answers what later requests wait for:
   * the outcome, or for an unconfirmed one, the outcome its first request settles it with.
   */
  begin(connection: Connection, outcome: Promise<ConnectionOutcome>): Promise<SettledOutcome> {
    let resolve: (result: SettledOutcome | Promise<SettledOutcome>) => void = () => {};
    const settledByFirst = new Promise<SettledOutcome>((done) => (resolve = done));
    const settled = outcome.then((result): SettledOutcome | Promise<SettledOutcome> => {
      if (!isUnconfirmed(result)) return result;
      this.states.set(connection, { kind: 'unconfirmed', outcome: result, settled, resolve });
      return settledByFirst;
    });
    this.states.set(connection, { kind: 'admitting', settled });
    settled.then(
      (result) => this.states.set(connection, settledState(result)),
      // A database error must not stick to the connection: the next request tries again.
      () => this.states.delete(connection),
    );
    return settled;
  }

  /**
   * unconfirmed -> admitting, then admitted or refused once `result` is known (or new again if
   * it fails). Nothing happens to a connection that is not unconfirmed (settled already).
   */
  settle(connection: Connection, result: SettledOutcome | Promise<SettledOutcome>): void {
    const state = this.states.get(connection);
    if (state?.kind !== 'unconfirmed') return;
    this.states.set(connection, { kind: 'admitting', settled: state.settled });
    state.resolve(result);
  }

  /** admitted -> admitted: the device row the connection's latest admission read, with its version. */
  read(connection: Connection, read: RowRead): void {
    const state = this.states.get(connection);
    if (state?.kind === 'admitted') state.lastRead = read;
  }
}

function settledState(result: SettledOutcome): ConnectionState {
  return result.ok ? { kind: 'admitted', connection: result, lastRead: { row: result.device, version: result.version } } : { kind: 'refused', failure: result };
}
