/** The streams and environment a run uses, injectable so tests run the CLI in-process. */
import type { Env } from './config/paths';

export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  env: Env;
}

export const processIo = (): CliIo => ({ stdout: process.stdout, stderr: process.stderr, env: process.env });
