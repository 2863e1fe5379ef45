import { describe, expect, it } from 'vitest';
import type { DeviceRow } from '../devices/schema';
import type { AdmittedConnection, UnconfirmedConnection } from './connection-admission';
import { ConnectionStates, type SettledOutcome } from './connection-state';
import type { DeviceAuthFailure } from './failures';

const CA = { id: 'ca-1', organizationId: 'org-1', prn: 'prn:1:org-1:ca_certificate:ca-1' };

function row(id: string): DeviceRow {
  return { id, organizationId: 'org-1' } as DeviceRow;
}

function admitted(id: string, version: string): AdmittedConnection {
  return { ok: true, device: row(id), fingerprint: 'AB', via: 'registered_certificate', ca: CA, version } as AdmittedConnection;
}

function refused(): DeviceAuthFailure {
  return { ok: false, reason: 'device_is_archived', organizationId: 'org-1', devicePrn: null, caPrn: null } as DeviceAuthFailure;
}

function unconfirmed(id: string, version: string): UnconfirmedConnection {
  return { ...admitted(id, version), deferred: {} as UnconfirmedConnection['deferred'], unconfirmed: true, confirm: async () => admitted(id, version) };
}

/** Lets every pending reaction run (the transitions happen in promise reactions). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ConnectionStates', () => {
  it('starts new: no state until the first request begins', () => {
    const states = new ConnectionStates();
    expect(states.get({})).toBeUndefined();
  });

  it('goes admitting, then admitted with the row the admission read', async () => {
    const states = new ConnectionStates();
    const socket = {};
    const later = states.begin(socket, Promise.resolve(admitted('d1', '7')));
    expect(states.get(socket)?.kind).toBe('admitting');
    await expect(later).resolves.toMatchObject({ ok: true, version: '7' });
    await settle();
    const state = states.get(socket);
    expect(state).toMatchObject({ kind: 'admitted', lastRead: { row: { id: 'd1' }, version: '7' } });
  });

  it('goes admitting, then refused, and keeps the refusal', async () => {
    const states = new ConnectionStates();
    const socket = {};
    const failure = refused();
    await states.begin(socket, Promise.resolve(failure));
    await settle();
    expect(states.get(socket)).toEqual({ kind: 'refused', failure });
  });

  it('returns to new after a database error, so the next request tries again', async () => {
    const states = new ConnectionStates();
    const socket = {};
    const later = states.begin(socket, Promise.reject(new Error('connection reset')));
    await expect(later).rejects.toThrow('connection reset');
    await settle();
    expect(states.get(socket)).toBeUndefined();
  });

  it('holds an unconfirmed outcome until its first request settles it as admitted', async () => {
    const states = new ConnectionStates();
    const socket = {};
    const outcome = unconfirmed('d1', '3');
    const later = states.begin(socket, Promise.resolve(outcome));
    let laterOutcome: SettledOutcome | undefined;
    void later.then((result) => (laterOutcome = result));
    await settle();
    const state = states.get(socket);
    expect(state?.kind).toBe('unconfirmed');
    expect(state?.kind === 'unconfirmed' && state.outcome).toBe(outcome);
    // Later requests still wait: nothing has proven the admission yet.
    expect(laterOutcome).toBeUndefined();

    states.settle(socket, admitted('d1', '4'));
    expect(states.get(socket)?.kind).toBe('admitting');
    await settle();
    expect(laterOutcome).toMatchObject({ ok: true, version: '4' });
    expect(states.get(socket)).toMatchObject({ kind: 'admitted', lastRead: { version: '4' } });
  });

  it('settles an unconfirmed outcome by a confirmation still running, and as refused when it refuses', async () => {
    const states = new ConnectionStates();
    const socket = {};
    const later = states.begin(socket, Promise.resolve(unconfirmed('d1', '3')));
    await settle();
    let confirm!: (result: SettledOutcome) => void;
    states.settle(socket, new Promise<SettledOutcome>((resolve) => (confirm = resolve)));
    await settle();
    expect(states.get(socket)?.kind).toBe('admitting');
    const failure = refused();
    confirm(failure);
    await expect(later).resolves.toBe(failure);
    await settle();
    expect(states.get(socket)).toEqual({ kind: 'refused', failure });
  });

  it('returns to new when the confirmation of an unconfirmed outcome fails', async () => {
    const states = new ConnectionStates();
    const socket = {};
    const later = states.begin(socket, Promise.resolve(unconfirmed('d1', '3')));
    await settle();
    states.settle(socket, Promise.reject(new Error('deadlock')));
    await expect(later).rejects.toThrow('deadlock');
    await settle();
    expect(states.get(socket)).toBeUndefined();
  });

  it('settles only an unconfirmed connection: a second settle, or one of an admitted connection, changes nothing', async () => {
    const states = new ConnectionStates();
    const socket = {};
    await states.begin(socket, Promise.resolve(admitted('d1', '1')));
    await settle();
    states.settle(socket, refused());
    await settle();
    expect(states.get(socket)).toMatchObject({ kind: 'admitted', lastRead: { version: '1' } });
  });

  it('records the row a later admission read only on an admitted connection', async () => {
    const states = new ConnectionStates();
    const admittedSocket = {};
    const refusedSocket = {};
    await states.begin(admittedSocket, Promise.resolve(admitted('d1', '1')));
    await states.begin(refusedSocket, Promise.resolve(refused()));
    await settle();
    states.read(admittedSocket, { row: row('d2'), version: '9' });
    states.read(refusedSocket, { row: row('d2'), version: '9' });
    expect(states.get(admittedSocket)).toMatchObject({ kind: 'admitted', lastRead: { row: { id: 'd2' }, version: '9' } });
    expect(states.get(refusedSocket)?.kind).toBe('refused');
  });

  it('keeps each connection apart', async () => {
    const states = new ConnectionStates();
    const one = {};
    const two = {};
    await states.begin(one, Promise.resolve(admitted('d1', '1')));
    await settle();
    expect(states.get(one)?.kind).toBe('admitted');
    expect(states.get(two)).toBeUndefined();
  });
});
