/**
 * The GRUB environment block (`grubenv`), read and written with GRUB's own `grub-editenv`, so
 * the file stays in the exact 1024-byte format GRUB's `load_env`/`save_env` expect and is
 * rewritten in place (save_env can only write a block that never moves on disk). The A/B trial
 * protocol on top of it is the same as with U-Boot (installers/avocado-ab-trial.ts); the GRUB
 * script side is in the docs page grub-environment/overview.md.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { BootEnvironment } from '../boot-env/boot-environment.ts';

const run = promisify(execFile);

/** `grub-editenv list` output: one `name=value` a line (values may contain `=`). */
export function parseEditenvList(text: string): Map<string, string> {
  const variables = new Map<string, string>();
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) variables.set(line.slice(0, at), line.slice(at + 1));
  }
  return variables;
}

/** Values grub-editenv would store but a GRUB script could not read back as one word. */
function checkValue(name: string, value: string): void {
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`GRUB variable name ${JSON.stringify(name)} must be letters, digits and _`);
  if (/[\n\\]/.test(value)) throw new Error(`GRUB variable ${name}: value must not contain a newline or backslash`);
}

export function openGrubEnvironment(file: string, editenv = 'grub-editenv'): BootEnvironment {
  let queue: Promise<unknown> = Promise.resolve();
  async function read() {
    const { stdout } = await run(editenv, [file, 'list']);
    return { variables: parseEditenvList(stdout) };
  }
  async function update(changes: Record<string, string | null>) {
    const set = Object.entries(changes).filter((e): e is [string, string] => e[1] !== null);
    const unset = Object.entries(changes).filter(([, v]) => v === null).map(([k]) => k);
    for (const [name, value] of set) checkValue(name, value);
    // One grub-editenv call rewrites the block once; two calls when both kinds of change exist.
    if (set.length > 0) await run(editenv, [file, 'set', ...set.map(([k, v]) => `${k}=${v}`)]);
    if (unset.length > 0) await run(editenv, [file, 'unset', ...unset]);
    return (await read()).variables;
  }
  return {
    read: () => (queue = queue.then(read, read)) as ReturnType<typeof read>,
    update: (changes) => (queue = queue.then(() => update(changes), () => update(changes))) as Promise<Map<string, string>>,
  };
}
