import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeAvocadoPages } from './lib/avocadoPages';
import { boards } from '../src/components/boards';
import { writeCliPages, type CliExamples } from './lib/cliPages';
import { loadCliData, loadCliTree } from './lib/cliTree';
import { writeEventPartials } from './lib/eventTables';
import { writeHardware } from './lib/hardwarePages';
import { checkOpenApi, refreshOpenApi } from './lib/openapi';
import { writeRouteAccess } from './lib/routeAccess';

// Prebuild step: turns the small data files into the repetitive pages (CLI actions, avocado
// commands, board guides and board pages) and the event catalogue into the events tables. The
// output is git-ignored and rebuilt every time.
const siteDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoDir = path.resolve(siteDir, '..');

const openapi = refreshOpenApi(repoDir);
checkOpenApi(repoDir);

const cliData = loadCliData(siteDir);
const { tree, source } = loadCliTree(repoDir, cliData);
// Examples come from a real session recorded by test/cliExamples.test.ts, which also checks it.
const cliExamples = JSON.parse(fs.readFileSync(path.join(siteDir, 'data/cli-examples.json'), 'utf8')) as CliExamples;
const cli = writeCliPages(path.join(siteDir, 'docs/canopy-core/tools/canopy-cli'), tree, cliData, cliExamples);
const avocado = writeAvocadoPages(siteDir);
const hardware = writeHardware(siteDir, boards);
const routeAccess = writeRouteAccess(siteDir, repoDir);
const eventPartials = writeEventPartials(siteDir);

console.log(`[generate] OpenAPI: ${openapi}`);
console.log(`[generate] ${cli.length} CLI pages from ${source}, ${avocado.length} avocado pages, ${hardware.length} hardware routes, ${eventPartials.length} event tables`);
console.log(`[generate] security model matrix: ${routeAccess} admin routes from packages/server/route-access.json`);
