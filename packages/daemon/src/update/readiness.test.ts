import { describe, expect, it } from 'vitest';
import { checkReadiness } from './readiness.ts';

const sh = (script: string) => ['/bin/sh', '-c', script];

describe('readiness command', () => {
  it('is ready on exit 0', async () => {
    expect(await checkReadiness(sh('echo fine; exit 0'), 5)).toEqual({ ready: true });
  });

  it('is not ready on another exit, with the first line of stdout as the reason', async () => {
    expect(await checkReadiness(sh('printf "vehicle moving\\nspeed 40\\n"; exit 3'), 5)).toEqual({ ready: false, reason: 'vehicle moving' });
    expect(await checkReadiness(sh('exit 7'), 5)).toEqual({ ready: false, reason: 'readiness command exited 7' });
  });

  it('is not ready when the command cannot start or runs past its timeout', async () => {
    expect(await checkReadiness(['/nonexistent/ready'], 5)).toEqual({ ready: false, reason: 'readiness command did not start: ENOENT' });
    const started = Date.now();
    expect(await checkReadiness(['/bin/sleep', '10'], 1)).toEqual({ ready: false, reason: 'readiness command timed out after 1 s' });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
