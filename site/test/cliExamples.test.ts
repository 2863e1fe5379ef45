/**
 * Records the examples of the CLI and API references from a real session, and checks the
 * committed recordings still match it.
 *
 * The session (helpers/cliScenario.ts) runs the real canopy CLI in-process (its `runCli`, the
 * function bin/canopy.mjs calls) against the real server over HTTP, on a fresh database. Every
 * request the CLI sends through fetch is recorded too, per admin API operation. After
 * normalization (helpers/normalize.ts: ids, times, keys, ports made stable) the results must equal
 * site/data/cli-examples.json and site/data/api-examples.json, from which scripts/generate.ts
 * writes the reference pages. So a CLI or API change that breaks an example, or changes its
 * output, fails here; `CANOPY_RECORD_EXAMPLES=1 npx vitest run test/cliExamples.test.ts`
 * re-records after a deliberate change (review the diff).
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_RECORDED, STEPS, pick, shellWords } from './helpers/cliScenario';
import { Normalizer } from './helpers/normalize';
import { repoDir, siteDir } from './helpers/paths';

interface TestServer {
  url: string;
  apiKey: string;
  close(): Promise<void>;
}
interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
}
interface CommandNode {
  name: string;
  commands: CommandNode[];
}

export interface CliExample {
  command: string;
  output: string;
}
export interface ApiExample {
  method: string;
  path: string;
  request: unknown;
  status: number;
  response: unknown;
}

const CLI_FILE = path.join(siteDir, 'data/cli-examples.json');
const API_FILE = path.join(siteDir, 'data/api-examples.json');
const RECORD = process.env.CANOPY_RECORD_EXAMPLES === '1';
/** Variables shown as their value in the examples, since a reader has no variable for them. */
const RECEIVER_SHOWN = 'https://hooks.example.com/canopy';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-cli-examples-'));
let server: TestServer;
let receiver: https.Server;
let receiverUrl = '';

/** An HTTPS webhook receiver that answers 200, with a self-signed certificate the server trusts. */
async function startReceiver(): Promise<string> {
  const key = path.join(scratch, 'receiver-key.pem');
  const cert = path.join(scratch, 'receiver.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  receiver = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return cert;
}

beforeAll(async () => {
  const receiverCa = await startReceiver();
  receiverUrl = `https://127.0.0.1:${(receiver.address() as { port: number }).port}/canopy`;
  const { startTestServer } = (await import(/* @vite-ignore */ path.join(repoDir, 'packages/server/test/support/server.ts'))) as {
    startTestServer: (overrides: object) => Promise<TestServer>;
  };
  server = await startTestServer({ webhookAllowPrivate: true, webhookCaFiles: [receiverCa] });
});

afterAll(async () => {
  await server?.close();
  receiver?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** Operation templates of the admin API (`/artifacts/{prn}`) as matchers, literal segments first. */
function operationMatcher(openapi: { paths: Record<string, Record<string, unknown>> }) {
  const templates = Object.keys(openapi.paths)
    .map((template) => ({
      template,
      params: (template.match(/\{/g) ?? []).length,
      regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }))
    .sort((a, b) => a.params - b.params);
  return (method: string, pathname: string) => {
    const found = templates.find((t) => t.regex.test(pathname) && openapi.paths[t.template][method.toLowerCase()]);
    return found ? `${method} ${found.template}` : null;
  };
}

/** A multipart body as its fields; a file part shows as curl's `-F name=@file` would name it. */
function formFields(form: FormData): Record<string, string> {
  const fields: Record<string, string> = {};
  form.forEach((value, name) => {
    fields[name] = typeof value === 'string' ? value : `@${(value as File).name}`;
  });
  return fields;
}

interface FwupSupport {
  firmwareKey(): { privateKey: unknown; value: string };
  fwupArchive(options: { meta: Record<string, string>; key: { privateKey: unknown; value: string } }): Buffer;
}

async function fwupSupport(): Promise<FwupSupport> {
  return (await import(/* @vite-ignore */ path.join(repoDir, 'packages/server/test/support/fwup.ts'))) as FwupSupport;
}

/**
 * The legacy API's files, as a reader makes them with fwup: `fwup-key.pub` (`fwup -g` writes the
 * raw Ed25519 public key in base64) and two archives signed with its private key (`fwup -S`). The
 * key and uuids are new every run; sizes are not, so the recording compares equal.
 */
function writeFwupFiles(dir: string, fwup: FwupSupport): void {
  const key = fwup.firmwareKey();
  fs.writeFileSync(path.join(dir, 'fwup-key.pub'), `${key.value}\n`);
  for (const version of ['2.0.0', '2.0.1']) {
    const meta = { 'meta-product': 'field-gateway', 'meta-version': version, 'meta-uuid': randomUUID(), 'meta-platform': 'rpi4', 'meta-architecture': 'arm', 'meta-author': 'ops', 'meta-fwup-version': '1.10.1' };
    fs.writeFileSync(path.join(dir, `gateway-${version}.fw`), fwup.fwupArchive({ meta, key }));
  }
}

function leafPaths(node: CommandNode, prefix: string[] = []): string[] {
  return node.commands.flatMap((sub) => (sub.commands.length ? leafPaths(sub, [...prefix, sub.name]) : [[...prefix, sub.name].join(' ')]));
}

describe('CLI and API reference examples', () => {
  it('every command of the CLI runs in the session or says why not', async () => {
    const tree = JSON.parse(fs.readFileSync(path.join(repoDir, 'packages/cli/command-tree.json'), 'utf8')) as CommandNode;
    const scripted = new Set(STEPS.filter((s) => !s.setup).map((s) => shellWords(s.cmd.replace(/"[^"]*"/g, 'x'), {}).slice(0, 3).join(' ')));
    const missing = leafPaths(tree).filter((p) => !NOT_RECORDED[p] && ![...scripted].some((s) => s === p || s.startsWith(`${p} `)));
    expect(missing).toEqual([]);
  });

  it('runs the session and matches the committed recordings', async () => {
    const { runCli } = (await import(/* @vite-ignore */ path.join(repoDir, 'packages/cli/src/main.ts'))) as {
      runCli: (argv: string[], io: CliIo) => Promise<number>;
    };
    const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operationOf = operationMatcher(openapi);
    const tree = JSON.parse(fs.readFileSync(path.join(repoDir, 'packages/cli/command-tree.json'), 'utf8')) as CommandNode;
    const leaves = new Set(leafPaths(tree));

    const work = path.join(scratch, 'work');
    const home = path.join(scratch, 'home');
    fs.mkdirSync(work);
    fs.mkdirSync(home);
    // Deterministic file contents, so hashes and sizes in the examples are the same every run.
    const image = Buffer.alloc(100_000, 0).map((_, i) => (i * 7919) % 251);
    fs.writeFileSync(path.join(work, 'gateway-os-1.4.0.img'), image);
    const part = Buffer.alloc(1024, 0).map((_, i) => (i * 31) % 256);
    const partHash = createHash('sha256').update(part).digest('hex');
    writeFwupFiles(work, await fwupSupport());
    // `users auth` logs in as a user with a password; the CLI has no command that sets one.
    const user = await fetch(`${server.url}/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'ops', email: 'ops@example.com', password: 'correct horse battery staple', role: 'read' }),
    });
    expect(user.status).toBe(201);

    const origin = new URL(server.url).origin;
    const normalizer = new Normalizer([
      [receiverUrl, RECEIVER_SHOWN],
      [origin, 'http://localhost:4000'],
      [work + '/', ''],
      [work, '.'],
      [home, '~'],
    ], STEPS.flatMap((s) => s.cmd.match(/\d{4}-\d\d-\d\dT[\d:.]+Z/g) ?? []));
    const vars: Record<string, string> = { PART_HASH: partHash, RECEIVER_URL: receiverUrl };
    const shown: Record<string, string> = { PART_HASH: partHash, RECEIVER_URL: RECEIVER_SHOWN };

    // Every admin API call the CLI makes, in order, for the API reference's examples.
    const calls: ApiExample[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = input instanceof Request ? input.clone() : null;
      const url = new URL(request ? request.url : String(input));
      const method = (request?.method ?? init?.method ?? 'GET').toUpperCase();
      let body: unknown = null;
      const raw = request ? await request.text() : typeof init?.body === 'string' ? init.body : null;
      if (raw) body = (() => { try { return JSON.parse(raw); } catch { return null; } })();
      if (init?.body instanceof FormData) body = formFields(init.body);
      const response = await realFetch(input, init);
      const operation = url.origin === origin ? operationOf(method, url.pathname) : null;
      if (operation) {
        const text = await response.clone().text();
        let answer: unknown = null;
        try {
          answer = text ? JSON.parse(text) : null;
        } catch {
          answer = text;
        }
        calls.push({ method, path: operation.slice(method.length + 1) + decodeURIComponent(url.search), request: body, status: response.status, response: answer });
      }
      return response;
    };

    const cli: Record<string, CliExample> = {};
    const api: Record<string, ApiExample> = {};
    try {
      for (const step of STEPS) {
        const argv = shellWords(step.cmd, vars);
        let stdout = '';
        let stderr = '';
        const io: CliIo = {
          stdout: { write: (s: string) => (stdout += s), isTTY: false },
          stderr: { write: (s: string) => (stderr += s), isTTY: false },
          env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), CANOPY_BASE_URL: server.url, CANOPY_API_KEY: server.apiKey, PWD: work },
        };
        const cwd = process.cwd();
        process.chdir(work);
        const before = calls.length;
        let code: number;
        try {
          code = await runCli(argv, io);
        } finally {
          process.chdir(cwd);
        }
        expect(code, `canopy ${step.cmd}\n${stderr}`).toBe(0);
        const json = (() => { try { return JSON.parse(stdout); } catch { return null; } })();
        for (const [name, dotted] of Object.entries(step.save ?? {})) {
          const value = pick(json, dotted);
          expect(typeof value, `${step.cmd}: ${dotted} in ${stdout}`).toBe('string');
          vars[name] = value as string;
        }
        const commandPath = [...leaves].find((p) => argv.slice(0, p.split(' ').length).join(' ') === p)!;
        if (!step.setup && !cli[commandPath]) {
          const display = step.cmd.replace(/"\$([A-Z0-9_]+)"/g, (m, name: string) => (name in shown ? shown[name] : m));
          cli[commandPath] = { command: `canopy ${display}`, output: normalizer.output(stdout) };
        }
        for (const call of calls.slice(before)) {
          const key = `${call.method} ${call.path.replace(/\?.*$/, '')}`;
          if (call.status < 400 && !api[key]) {
            api[key] = normalizer.json({ ...call }) as ApiExample;
          }
        }
      }
    } finally {
      globalThis.fetch = realFetch;
    }

    const cliText = `${JSON.stringify(cli, null, 2)}\n`;
    const apiText = `${JSON.stringify(api, null, 2)}\n`;
    if (RECORD || !fs.existsSync(CLI_FILE)) fs.writeFileSync(CLI_FILE, cliText);
    if (RECORD || !fs.existsSync(API_FILE)) fs.writeFileSync(API_FILE, apiText);
    const hint = 'differs from the recording; if the change is meant, re-record with CANOPY_RECORD_EXAMPLES=1 and review the diff';
    const differences = (actual: Record<string, unknown>, file: string) => {
      const recorded = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      const keys = [...new Set([...Object.keys(actual), ...Object.keys(recorded)])];
      return keys
        .filter((k) => JSON.stringify(actual[k]) !== JSON.stringify(recorded[k]))
        .map((k) => `${k}: ${hint}\n--- now ---\n${JSON.stringify(actual[k], null, 1)}\n--- recorded ---\n${JSON.stringify(recorded[k], null, 1)}`);
    };
    expect(differences(cli, CLI_FILE).slice(0, 3)).toEqual([]);
    expect(differences(api, API_FILE).slice(0, 3)).toEqual([]);
  }, 180_000);
});
