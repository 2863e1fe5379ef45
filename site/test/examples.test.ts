/**
 * Runs the shell examples of the Canopy reference and tool pages against a real Canopy server.
 * The guides (docs/canopy-core/guides) are not run here: guides.test.ts runs them as a reader
 * meets them, in one shell, against a freshly started server. Block parsing: helpers/shellBlocks.ts.
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
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainFailure, extractExamples, markdownFiles, runBash, scriptOf, type ShellBlock } from './helpers/shellBlocks';

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
const GUIDES_DIR = path.join(siteDir, 'docs/canopy-core/guides');

const pages = DOC_ROOTS.flatMap((root) => markdownFiles(path.join(siteDir, root)))
  // The guides run in reading order in one shell against one server: guides.test.ts.
  .filter((file) => !file.startsWith(GUIDES_DIR))
  .sort()
  .map((file) => ({ file: path.relative(siteDir, file), examples: extractExamples(path.relative(siteDir, file), fs.readFileSync(file, 'utf8')) }))
  .filter((page) => page.examples.length > 0);

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
      const runnable: ShellBlock[] = [];
      let skippedFrom: ShellBlock | null = null;
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
      const result = await runBash(scriptOf(runnable), workDir, env, 100_000);
      const explanation = explainFailure(runnable, result);
      expect(result.code, explanation).toBe(0);
      if (skippedFrom) console.info(`${page.file}: ran ${runnable.length} blocks; skipped from line ${skippedFrom.line} on (needs ${skippedFrom.requires})`);
    }, 110_000);
  }
});
