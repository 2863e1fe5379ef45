/**
 * The state file (`state.json` in the state dir), written atomically on every transition. A
 * file that cannot be read back (never the case with atomic writes, but a disk can be replaced)
 * is kept aside as `state.json.corrupt` and the daemon starts from the initial state: it then
 * reports what it runs as unknown, and the server offers it the right bundle again.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import type { Logger } from '../log.ts';
import { INITIAL_STATE, type DaemonState } from './state.ts';

export interface StateStore {
  readonly file: string;
  load(): Promise<DaemonState>;
  save(state: DaemonState): Promise<void>;
}

export function stateFile(stateDir: string): string {
  return path.join(stateDir, 'state.json');
}

/** Reads the state without a store (the `status` subcommand); null when there is none yet. */
export function readStateSync(stateDir: string): DaemonState | null {
  try {
    return JSON.parse(fs.readFileSync(stateFile(stateDir), 'utf8')) as DaemonState;
  } catch {
    return null;
  }
}

export function createStateStore(stateDir: string, log: Logger): StateStore {
  const file = stateFile(stateDir);
  return {
    file,
    async load() {
      await fsp.mkdir(stateDir, { recursive: true, mode: 0o700 });
      let text: string;
      try {
        text = await fsp.readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return structuredClone(INITIAL_STATE);
        throw error;
      }
      try {
        const state = JSON.parse(text) as DaemonState;
        if (state?.version !== 1 || !state.phase || !state.running) throw new Error('not a state file');
        return state;
      } catch (error) {
        log.error('state file unreadable; starting afresh', { file, error: (error as Error).message });
        await fsp.rename(file, `${file}.corrupt`);
        return structuredClone(INITIAL_STATE);
      }
    },
    save: (state) => writeFileAtomic(file, `${JSON.stringify(state, null, 1)}\n`),
  };
}
