import { expect, it } from 'vitest';
import { lastComplaint, onPath, run, runOrThrow } from './tools.ts';

it('finds executables on PATH only', () => {
  expect(onPath('sh', '/nonexistent:/bin:/usr/bin')).toMatch(/\/sh$/);
  expect(onPath('sh', '/nonexistent')).toBeNull();
  expect(onPath('passwd', '/etc')).toBeNull(); // a file, not executable
});

it('reports the tool\'s last line of complaint, and lines as they come', async () => {
  const lines: string[] = [];
  const result = await run('sh', ['-c', 'echo one; echo two >&2; echo "fatal: bad" >&2; exit 3'], { onLine: (line) => lines.push(line) });
  expect(result.code).toBe(3);
  expect(lastComplaint(result)).toBe('fatal: bad');
  expect(lines).toEqual(['one', 'two', 'fatal: bad']);
  await expect(runOrThrow('thing', 'sh', ['-c', 'echo nope >&2; exit 2'])).rejects.toThrow('thing failed (exit 2): nope');
  await expect(run('/nonexistent/tool', [])).rejects.toThrow(/ENOENT/);
});
