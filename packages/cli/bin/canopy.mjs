#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so the workspace needs no build step.
import { register } from 'tsx/esm/api';

register();
// `canopy ... | head` closes the pipe early; that is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
const { runCli } = await import('../src/main.ts');
const { processIo } = await import('../src/io.ts');
process.exitCode = await runCli(process.argv.slice(2), processIo());
