/**
 * `npm run openapi`: writes the OpenAPI 3.1 documents of both APIs from the route schemas, for
 * the docs site and the SDK generator. The servers are built but never listen and no database
 * is opened: building the routes is enough to describe them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAdminApi } from '../admin-api';
import { loadConfig } from '../config';
import { buildDeviceApi } from '../device-api/app';
import type { Platform } from '../platform';

export const OPENAPI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../openapi');

/** A platform good enough to register routes; any handler touching it would fail loudly. */
export function describingPlatform(): Platform {
  const unavailable = new Proxy({}, { get: () => { throw new Error('no database while describing the API'); } });
  return {
    config: { ...loadConfig({}), publicUrl: 'http://localhost:4000', logLevel: 'silent' },
    db: unavailable as never,
    driver: 'pglite',
    secrets: unavailable as never,
    log: unavailable as never,
    jobs: { wake() {} },
    blobs: unavailable as never,
    urls: unavailable as never,
  };
}

export async function adminOpenApi(): Promise<unknown> {
  const app = await buildAdminApi(describingPlatform());
  await app.ready();
  const document = app.swagger();
  await app.close();
  return document;
}

/** The device API's document, from the same route schemas the mTLS server serves. */
export async function deviceOpenApi(): Promise<unknown> {
  const { app } = await buildDeviceApi(describingPlatform(), null, 'https://localhost:4001');
  await app.ready();
  const document = app.swagger();
  await app.close();
  return document;
}

async function main() {
  fs.mkdirSync(OPENAPI_DIR, { recursive: true });
  for (const [name, build] of [['admin-api.json', adminOpenApi], ['device-api.json', deviceOpenApi]] as const) {
    const file = path.join(OPENAPI_DIR, name);
    const text = `${JSON.stringify(await build(), null, 2)}\n`;
    // Unchanged documents are left alone: the site's suite may be reading them while `npm test`
    // regenerates the SDK in another lane; a changed one is written aside and renamed.
    if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text) continue;
    fs.writeFileSync(`${file}.${process.pid}`, text);
    fs.renameSync(`${file}.${process.pid}`, file);
    process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
