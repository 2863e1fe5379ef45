/** Setup file of every test file (vitest.config.ts): the file's temporary directories go when it ends (uploads leave 64 MiB there). */
import { afterAll } from 'vitest';
import { removeTemporaryDirs } from './temporary-dirs';

afterAll(removeTemporaryDirs);
