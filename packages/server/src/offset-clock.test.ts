import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { offsetClock } from './offset-clock';

it('adds the seconds the file holds, read again after 100 ms; no file or no number is 0', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'offset-clock-')), 'offset');
  let wall = 1_000_000;
  const clock = offsetClock(file, () => wall);
  expect(clock().getTime()).toBe(1_000_000);
  fs.writeFileSync(file, '3600\n');
  wall += 50;
  expect(clock().getTime()).toBe(1_000_050);
  wall += 100;
  expect(clock().getTime()).toBe(1_000_150 + 3_600_000);
  fs.writeFileSync(file, 'soon');
  wall += 100;
  expect(clock().getTime()).toBe(1_000_250);
});
