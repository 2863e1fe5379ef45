/**
 * Runs the shell examples of the Canopy pages against a real Canopy server.
 *
 * Marker convention: a fenced block is an executable example when its language is `sh` and its
 * meta string contains the word `test`, for example
 *
 *     ```sh title="Create a product" test
 *     curl -fsS -X POST "$CANOPY_URL/products" ...
 *     ```
 *
 * Docusaurus ignores the extra word; `title="..."` still renders. Blocks without `test` (device
 * side commands, placeholders) are documentation only. A block may add `requires="..."`:
 *   - `requires="GET /some/path"`: run only when the server has that admin route (not a 404 for
 *     an unknown route), e.g. routes still being merged from a branch;
 *   - `requires="device-api"`: run only when the test server also serves the device API.
 * When a requirement is not met, that block and the rest of its page are skipped (later blocks may
 * use its variables); the test names what was skipped.
 *
 * Each page's blocks run in order in ONE bash process (`set -euo pipefail`), so a shell variable
 * set in one block (a prn captured with jq, say) is there for the next. Every page gets its own
 * organization (so names never clash between pages), its own temporary working directory and its
 * own CLI configuration directory. Environment: CANOPY_URL and CANOPY_API_KEY (an admin key of the
 * page's organization), CANOPY_BASE_URL (the CLI reads it), PATH with node_modules/.bin so
 * `canopy` is the workspace CLI, and, when the device API is up, CANOPY_DEVICE_URL and
 * CANOPY_DEVICE_CA (a PEM file of the CA the device API's certificate chains to).
 * Examples use `curl -fsS`, so an HTTP error fails the page.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** What this test uses of packages/server/test/support/server.ts (imported at run time, so the
 * site's typecheck does not compile the server's sources under the site's compiler settings). */
interface TestServer {
  url: string;
  apiKey: string;
  deviceUrl?: string;
  deviceServerCaPem?: string;
  createOrganization(name?: string): Promise<{ organizationId: string; apiKey: string }>;
  close(): Promise<void>;
}

const siteDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoDir = path.resolve(siteDir, '..');
const SERVER_SUPPORT = path.join(repoDir, 'packages/server/test/support/server.ts');
const DOC_ROOTS = ['docs/canopy-core', 'docs/overview', 'docs/avocado-os', 'docs/hardware'];

export interface Example {
  file: string;
  line: number;
  title: string | null;
  requires: string | null;
  code: string;
}

function markdownFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return /\.mdx?$/.test(entry.name) ? [full] : [];
  });
}

/** The marked blocks of one page, in order. Blocks inside list items may be indented. */
export function extractExamples(file: string, text: string): Example[] {
  const lines = text.split('\n');
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang, meta] = open;
    let end = i + 1;
    while (end < lines.length && !new RegExp(`^\\s*${fence}\\s*$`).test(lines[end])) end++;
    const body = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart()));
    if (lang === 'sh' && /(^|\s)test(\s|$)/.test(meta)) {
      examples.push({
        file,
        line: i + 1,
        title: /title="([^"]*)"/.exec(meta)?.[1] ?? null,
        requires: /requires="([^"]*)"/.exec(meta)?.[1] ?? null,
        code: body.join('\n'),
      });
    }
    i = end;
  }
  return examples;
}

const pages = DOC_ROOTS.flatMap((root) => markdownFiles(path.join(siteDir, root)))
  .sort()
  .map((file) => ({ file: path.relative(siteDir, file), examples: extractExamples(path.relative(siteDir, file), fs.readFileSync(file, 'utf8')) }))
  .filter((page) => page.examples.length > 0);

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<RunResult> {
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

let server: TestServer;
let deviceCaFile: string | null = null;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-doc-examples-'));

beforeAll(async () => {
  const { startTestServer } = (await import(/* @vite-ignore */ SERVER_SUPPORT)) as { startTestServer: () => Promise<TestServer> };
  server = await startTestServer();
  const caPem = server.deviceServerCaPem;
  if (caPem) {
    deviceCaFile = path.join(scratch, 'device-api-ca.pem');
    fs.writeFileSync(deviceCaFile, caPem);
  }
});

afterAll(async () => {
  await server?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const routeChecks = new Map<string, Promise<boolean>>();

/** Whether a `requires` is met on this server. */
function requirementMet(requirement: string): Promise<boolean> {
  if (requirement === 'device-api') return Promise.resolve(Boolean(server.deviceUrl));
  const match = /^(GET|POST|PUT|PATCH|DELETE) (\/\S*)$/.exec(requirement);
  if (!match) throw new Error(`unknown requires="${requirement}"`);
  if (!routeChecks.has(requirement)) {
    routeChecks.set(
      requirement,
      fetch(`${server.url}${match[2]}`, { method: match[1], headers: { authorization: `Bearer ${server.apiKey}` } }).then(async (res) => {
        if (res.status !== 404) return true;
        const body = (await res.json().catch(() => null)) as { errors?: { context?: { route?: string } }[] } | null;
        // Fastify's unknown-route answer names the route; a resource 404 does not.
        return !body?.errors?.[0]?.context?.route;
      }),
    );
  }
  return routeChecks.get(requirement)!;
}

describe('documentation examples', () => {
  it('finds marked examples in the Canopy pages', () => {
    expect(pages.length).toBeGreaterThan(5);
  });

  for (const page of pages) {
    it.concurrent(`${page.file} (${page.examples.length} blocks)`, async (context) => {
      const runnable: Example[] = [];
      let skippedFrom: Example | null = null;
      for (const example of page.examples) {
        if (example.requires && !(await requirementMet(example.requires))) {
          skippedFrom = example;
          break;
        }
        runnable.push(example);
      }
      if (runnable.length === 0) {
        context.skip(`needs ${skippedFrom?.requires}`);
        return;
      }

      const org = await server.createOrganization();
      const workDir = fs.mkdtempSync(path.join(scratch, 'page-'));
      const home = path.join(workDir, '.home');
      fs.mkdirSync(home);
      const deviceUrl = server.deviceUrl;
      const env: NodeJS.ProcessEnv = {
        PATH: `${path.join(repoDir, 'node_modules/.bin')}:${process.env.PATH}`,
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        LANG: 'C.UTF-8',
        CANOPY_URL: server.url,
        CANOPY_BASE_URL: server.url,
        CANOPY_API_KEY: org.apiKey,
        ...(deviceUrl && deviceCaFile ? { CANOPY_DEVICE_URL: deviceUrl, CANOPY_DEVICE_CA: deviceCaFile } : {}),
      };
      const script = [
        'set -euo pipefail',
        ...runnable.map((example, index) => `echo "::example ${index} ${example.file}:${example.line}" >&2\n${example.code}`),
      ].join('\n');
      const result = await runBash(script, workDir, env, 100_000);
      const failedMarker = [...result.stderr.matchAll(/::example (\d+) /g)].pop();
      const failed = failedMarker ? runnable[Number(failedMarker[1])] : null;
      const explanation =
        result.code === 0
          ? ''
          : `example ${failed?.file}:${failed?.line}${failed?.title ? ` "${failed.title}"` : ''} failed (exit ${result.code})\n` +
            `--- block ---\n${failed?.code}\n--- stdout (tail) ---\n${result.stdout.slice(-3000)}\n--- stderr (tail) ---\n${result.stderr.slice(-3000)}`;
      expect(result.code, explanation).toBe(0);
      if (skippedFrom) console.info(`${page.file}: ran ${runnable.length} blocks; skipped from line ${skippedFrom.line} on (needs ${skippedFrom.requires})`);
    }, 110_000);
  }
});
