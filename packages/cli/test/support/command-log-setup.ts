/** Setup file of every test file (vitest.config.ts): marks the file as started in this run's command log. */
import { beforeAll } from 'vitest';
import { markTestFileStarted } from './command-log';

// vitest reads the first parameter as a fixture list and insists on a destructuring pattern.
beforeAll(({}, suite) => {
  markTestFileStarted(suite.file.filepath);
});
