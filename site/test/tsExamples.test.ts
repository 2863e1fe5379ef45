/**
 * Runs the TypeScript examples of the docs against a real Canopy server, as a reader would after
 * copying them: a fenced block is run when its language is `ts` and its meta has the word `test`:
 *
 *     ```ts title="list-products.ts" test
 *
 * Each example is written to its own file in a temporary project whose node_modules is the
 * checkout's (so `@canopy/sdk` is the workspace package, as the SDK page says), type-checked with
 * `tsc` under strict settings (a call the SDK's generated types refuse is a failure), then run
 * with `tsx` and CANOPY_URL / CANOPY_API_KEY of a fresh organization on a server started
 * in-process. When the block right after it is a `text` block titled "Output", the run's output
 * (stdout and stderr together) must match it line by line, where `…` stands for any text.
 *
 * A block with the word `receiver` too is a webhook receiver (an HTTPS server on $PORT with
 * `receiver.pem` / `receiver-key.pem`, which this test issues from its own CA). The server is
 * started trusting that CA with private addresses allowed (CANOPY_WEBHOOK_ALLOW_PRIVATE), a
 * webhook is created to the receiver with its secret in CANOPY_WEBHOOK_SECRET, enabled (the
 * server's signed test fire), and sent one delivery with a wrong signature; its output is
 * compared as above.
 *
 * So a change to a page, to the SDK or to the API that breaks an example fails here.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fencedBlocks, markdownFiles, runBash, type FencedBlock, type RunResult } from './helpers/shellBlocks';
import { repoDir, siteDir } from './helpers/paths';
import { freePort } from './helpers/ports';

interface TestServer {
  url: string;
  apiKey: string;
  createOrganization(name?: string): Promise<{ organizationId: string; apiKey: string }>;
  close(): Promise<void>;
}

const SERVER_SUPPORT = path.join(repoDir, 'packages/server/test/support/server.ts');

interface TsExample {
  block: FencedBlock;
  /** The lines of the "Output" block that follows it, if any. */
  output: string[] | null;
  fileName: string;
  receiver: boolean;
}

const examples: TsExample[] = markdownFiles(path.join(siteDir, 'docs')).flatMap((file) => {
  const relative = path.relative(siteDir, file);
  const blocks = fencedBlocks(relative, fs.readFileSync(file, 'utf8'));
  return blocks.flatMap((block, index) => {
    if (!/^(ts|typescript)$/.test(block.lang) || !block.test) return [];
    const next = blocks[index + 1];
    const output = next && next.lang === 'text' && /^Output/.test(next.title ?? '') ? next.code.split('\n') : null;
    const fileName = `${relative.replace(/[^a-zA-Z0-9]+/g, '-')}-${block.line}.ts`;
    return [{ block, output, fileName, receiver: /(^|\s)receiver(\s|$)/.test(block.meta) }];
  });
});

/** Whether an output line matches an expected line in which `…` stands for any text. */
function lineMatches(expected: string, actual: string): boolean {
  const pattern = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`).test(actual);
}

/**
 * `tsc` over the examples, which follows their imports into the SDK. The SDK's types are generated
 * from the server's OpenAPI document (CI's typecheck stage writes them first); without them every
 * typed call would be `any` and prove nothing, so they are generated here when missing.
 */
async function typecheckExamples(): Promise<RunResult> {
  if (!fs.existsSync(path.join(repoDir, 'packages/sdk/src/generated/admin-api.d.ts'))) {
    const generated = await runBash('npm run generate -w @canopy/sdk', repoDir, process.env, 170_000);
    if (generated.code !== 0) return generated;
  }
  return runBash(`node ${JSON.stringify(path.join(repoDir, 'node_modules/typescript/bin/tsc'))} -p .`, scratch, process.env, 170_000);
}

let typecheck: Promise<RunResult>;
/** Fails the test when `stdout` is not what the page's "Output" block shows. */
function expectOutput(example: TsExample, stdout: string): void {
  if (!example.output) return;
  const actual = stdout.trimEnd().split('\n');
  const expected = example.output.filter((line, i, all) => i < all.length - 1 || line !== '');
  const mismatch = expected.findIndex((line, i) => !lineMatches(line, actual[i] ?? ''));
  expect(
    mismatch === -1 && actual.length === expected.length,
    `the run's output differs from the page's "Output" block (line ${mismatch + 1}):\n--- page ---\n${expected.join('\n')}\n--- run ---\n${actual.join('\n')}`,
  ).toBe(true);
}

/** A CA and a certificate for localhost / 127.0.0.1 it issued, as a lab receiver would have. */
async function issueReceiverCertificate(dir: string): Promise<void> {
  const script = [
    'openssl ecparam -genkey -name prime256v1 -noout -out ca-key.pem',
    'openssl req -x509 -new -key ca-key.pem -subj "/CN=Lab CA" -days 2 -sha256 -out ca.pem',
    'openssl ecparam -genkey -name prime256v1 -noout -out receiver-key.pem',
    'openssl req -x509 -new -key receiver-key.pem -CA ca.pem -CAkey ca-key.pem -days 2 -sha256 -subj "/CN=localhost" ' +
      '-addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -addext "basicConstraints=critical,CA:FALSE" -addext "extendedKeyUsage=serverAuth" -out receiver.pem',
  ].join(' && ');
  const made = await runBash(script, dir, process.env, 30_000);
  if (made.code !== 0) throw new Error(`openssl: ${made.stderr}`);
}

async function waitForPort(port: number, deadline: number): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(socket.end() && true));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A POST to the receiver signed with the wrong secret; resolves with its status. */
function forgedDelivery(port: number, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ version: 1, type: 'webhook', data: { type: 'test_fire', data: {} } });
    const req = https.request(
      { host: '127.0.0.1', servername: 'localhost', port, path: '/canopy', method: 'POST', ca, headers: { 'content-type': 'application/json', 'canopy-published-at': new Date().toISOString(), 'canopy-signature': 'AB'.repeat(32) } },
      (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0)),
    );
    req.once('error', reject);
    req.end(body);
  });
}

async function api(method: string, url: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url + url, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-ts-examples-'));
let server: TestServer;

beforeAll(async () => {
  // The examples' project: its own files, the checkout's packages.
  fs.symlinkSync(path.join(repoDir, 'node_modules'), path.join(scratch, 'node_modules'));
  fs.writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  fs.writeFileSync(
    path.join(scratch, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        types: ['node'],
        strict: true,
        skipLibCheck: true,
        allowImportingTsExtensions: true,
        noEmit: true,
      },
      include: ['*.ts'],
    }),
  );
  for (const example of examples) fs.writeFileSync(path.join(scratch, example.fileName), example.block.code + '\n');
  // Type-checking takes as long as starting the server: both at once.
  typecheck = typecheckExamples();
  typecheck.catch(() => undefined);
  await issueReceiverCertificate(scratch);
  const { startTestServer } = (await import(/* @vite-ignore */ SERVER_SUPPORT)) as {
    startTestServer: (overrides: Record<string, unknown>) => Promise<TestServer>;
  };
  // Webhook receivers on this machine: a lab's settings (CANOPY_WEBHOOK_ALLOW_PRIVATE, CANOPY_WEBHOOK_CA_FILE).
  server = await startTestServer({ webhookAllowPrivate: true, webhookCaFiles: [path.join(scratch, 'ca.pem')] });
});

afterAll(async () => {
  await server?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('TypeScript examples', () => {
  it('finds the TypeScript SDK page example', () => {
    expect(examples.map((e) => e.block.file)).toContain('docs/canopy-core/tools/typescript-sdk.md');
  });

  it('type-checks every example against the SDK', async () => {
    const tsc = await typecheck;
    expect(tsc.code, `${tsc.stdout}\n${tsc.stderr}`).toBe(0);
  }, 180_000);

  for (const example of examples.filter((e) => !e.receiver)) {
    const { block } = example;
    it(`${block.file}:${block.line}${block.title ? ` "${block.title}"` : ''} runs`, async () => {
      const org = await server.createOrganization();
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: scratch,
        LANG: 'C.UTF-8',
        CANOPY_URL: server.url,
        CANOPY_API_KEY: org.apiKey,
      };
      const result = await runBash(`node --import tsx ${example.fileName} 2>&1`, scratch, env, 50_000);
      expect(result.code, result.stdout).toBe(0);
      expectOutput(example, result.stdout);
    }, 60_000);
  }

  for (const example of examples.filter((e) => e.receiver)) {
    const { block } = example;
    it(`${block.file}:${block.line}${block.title ? ` "${block.title}"` : ''} receives and verifies deliveries`, async () => {
      const org = await server.createOrganization();
      const port = await freePort();
      const created = await api('POST', '/webhooks', org.apiKey, {
        url: `https://localhost:${port}/canopy`,
        enabled_events: ['webhook.test_fire'],
        state: 'disabled',
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      let stdout = '';
      const receiver = spawn(process.execPath, ['--import', 'tsx', example.fileName], {
        cwd: scratch,
        env: { PATH: process.env.PATH, HOME: scratch, PORT: String(port), CANOPY_WEBHOOK_SECRET: created.body.webhook.secret },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      receiver.stdout.on('data', (chunk) => (stdout += chunk));
      receiver.stderr.on('data', (chunk) => (stdout += chunk));
      try {
        await waitForPort(port, Date.now() + 40_000);
        // Enabling sends the signed test fire, and fails unless the receiver answers 200.
        const enabled = await api('PATCH', `/webhooks/${created.body.webhook.prn}`, org.apiKey, { state: 'enabled' });
        expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
        expect(await forgedDelivery(port, fs.readFileSync(path.join(scratch, 'ca.pem'), 'utf8'))).toBe(401);
        await expect.poll(() => stdout.trimEnd().split('\n').length, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
      } finally {
        receiver.kill();
      }
      expectOutput(example, stdout);
    }, 60_000);
  }
});
