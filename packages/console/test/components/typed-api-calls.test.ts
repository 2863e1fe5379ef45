/**
 * The console calls the admin API only through the SDK's typed client (`client.api`, whose paths,
 * bodies and answers are generated from the server's OpenAPI document), and writes each query key
 * once, in its feature's query factories. These scan the source so a new untyped call
 * (`client.request(...)`, `requestForm`) or a key written inline fails here, not in review.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** `file:line: text` of every line matching `pattern` in files `skip` does not exclude. */
function matches(pattern: RegExp, skip: (relative: string) => boolean = () => false): string[] {
  return sourceFiles(SRC).flatMap((file) => {
    const relative = path.relative(SRC, file).split(path.sep).join('/');
    if (skip(relative)) return [];
    return fs.readFileSync(file, 'utf8').split('\n').flatMap((line, i) => (pattern.test(line) ? [`${relative}:${i + 1}: ${line.trim()}`] : []));
  });
}

describe('API calls', () => {
  it('never use the untyped escape hatch (request, requestForm) of the SDK client', () => {
    expect(sourceFiles(SRC).length).toBeGreaterThan(50);
    expect(matches(/\.request(Form)?\s*[<(]/)).toEqual([]);
  });

  it('write query keys only in the query factories (features/*/queries.ts)', () => {
    const inline = /queryKey:\s*\[|listKey=\{\s*\[|queryKey:\s*['"]/;
    expect(matches(inline, (file) => /^features\/[^/]+\/queries\.ts$/.test(file))).toEqual([]);
  });
});
