/**
 * Reads the shell blocks of the docs' markdown and runs them in bash. Shared by
 * examples.test.ts (reference pages, each in its own organization) and guides.test.ts (the
 * guides, in reading order, in one shell against one fresh server).
 *
 * Block meta words (Docusaurus ignores them; `title="..."` still renders):
 *   - `test`: on reference and tool pages, marks a block examples.test.ts runs;
 *   - `norun="why"`: this block is not run, and the reader is told why (needs hardware, a public
 *     receiver, restarts the server...). On guide pages every `sh` block runs unless it has one;
 *   - `requires="GET /path"` / `requires="device-api"`: see examples.test.ts.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface FencedBlock {
  file: string;
  line: number;
  /** The fence's language word (`sh`, `ts`, `json`...), '' when none. */
  lang: string;
  /** Everything after the language word. */
  meta: string;
  title: string | null;
  requires: string | null;
  /** The reason given with `norun="..."`, or null when the block may run. */
  norun: string | null;
  /** Whether the meta has the word `test`. */
  test: boolean;
  code: string;
}

/** A shell block: what the shell tests read. */
export type ShellBlock = FencedBlock;

export function markdownFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return /\.mdx?$/.test(entry.name) ? [full] : [];
  });
}

/** Every fenced code block of one page, in order. Blocks inside list items may be indented. */
export function fencedBlocks(file: string, text: string): FencedBlock[] {
  const lines = text.split('\n');
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang, meta] = open;
    let end = i + 1;
    while (end < lines.length && !new RegExp(`^\\s*${fence}\\s*$`).test(lines[end])) end++;
    const body = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart()));
    blocks.push({
      file,
      line: i + 1,
      lang,
      meta,
      title: /title="([^"]*)"/.exec(meta)?.[1] ?? null,
      requires: /requires="([^"]*)"/.exec(meta)?.[1] ?? null,
      norun: /norun="([^"]*)"/.exec(meta)?.[1] ?? (/(^|\s)norun(\s|$)/.test(meta) ? '' : null),
      test: /(^|\s)test(\s|$)/.test(meta),
      code: body.join('\n'),
    });
    i = end;
  }
  return blocks;
}

/** The `sh` blocks of one page, in order. */
export function shellBlocks(file: string, text: string): ShellBlock[] {
  return fencedBlocks(file, text).filter((block) => block.lang === 'sh');
}

/** The `sh ... test` blocks of a page (what examples.test.ts runs). */
export function extractExamples(file: string, text: string): ShellBlock[] {
  return shellBlocks(file, text).filter((block) => block.test && block.norun === null);
}

/** Front matter `sidebar_position` of a page, or Infinity. */
export function sidebarPosition(text: string): number {
  const match = /^---\n[\s\S]*?^sidebar_position:\s*(\d+)\s*$[\s\S]*?^---/m.exec(text);
  return match ? Number(match[1]) : Number.POSITIVE_INFINITY;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * One bash script running the blocks in order under `set -euo pipefail`, each preceded by a
 * marker line on stderr so a failure can be traced back to its block.
 */
export function scriptOf(blocks: ShellBlock[]): string {
  return ['set -euo pipefail', ...blocks.map((block, index) => `echo "::example ${index} ${block.file}:${block.line}" >&2\n${block.code}`)].join('\n');
}

/** Which block failed, and its output tails, for an assertion message. */
export function explainFailure(blocks: ShellBlock[], result: RunResult): string {
  if (result.code === 0) return '';
  const marker = [...result.stderr.matchAll(/::example (\d+) /g)].pop();
  const failed = marker ? blocks[Number(marker[1])] : null;
  return (
    `example ${failed?.file}:${failed?.line}${failed?.title ? ` "${failed.title}"` : ''} failed (exit ${result.code})\n` +
    `--- block ---\n${failed?.code}\n--- stdout (tail) ---\n${result.stdout.slice(-3000)}\n--- stderr (tail) ---\n${result.stderr.slice(-3000)}`
  );
}
