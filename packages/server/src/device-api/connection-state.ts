/**
 * One device API connection's state: one value per connection, changed only by these transitions
 * (driven by connection-auth.ts, tested alone by connection-state.test.ts):
 *   (new) ─begin─> admitting ─outcome─> admitted | refused | unconfirmed; db error: (new)
 *   unconfirmed ─settle─> admitting ─> admitted | refused, or (new) when settling failed
 *   admitted ─read─> admitted, keeping the device row its last request read (`lastRead`)
 *
 * While admitting or unconfirmed, later requests wait for `settled`. Unconfirmed: the first
 * request's update check proves the admission in its own write (connection-admission.ts
 * `speculate`). Admitted: later requests are readmitted on `lastRead`. Refused: always a 401.
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
