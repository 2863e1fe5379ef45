/**
 * A real S3-protocol server for tests: s3rver (pure JavaScript, from npm), on a free port with
 * its files in a temporary folder. The S3 store talks to it exactly as it would to AWS.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error s3rver ships no type declarations
import S3rver from 's3rver';
import type { BlobStoreConfig } from '../../src/config';

export interface TestS3 {
  config: Extract<BlobStoreConfig, { kind: 's3' }>;
  close(): Promise<void>;
}

export async function startTestS3(bucket = 'canopy-test'): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = (await server.run()) as { port: number };
  return {
    config: {
      kind: 's3',
      bucket,
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      // s3rver's fixed credentials.
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    },
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
