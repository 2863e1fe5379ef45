/**
 * `canopy binaries create`: without --content-path, a plain POST /binaries (hash and size given).
 * With it, the whole pipeline: hash, create or reuse, upload parts (resuming), wait for signable,
 * sign with --signing-key-pair, and with --cohort-prn also create the bundle and the release.
 */
import path from 'node:path';
import { fillPath, signAndAttach, uploadBinary, type Binary } from '@canopy/sdk';
import { UsageError } from '../../errors';
import { createProgressReporter } from '../../progress';
import type { ActionRun } from '../action';
import { int, str } from '../fields';
import { resolveKeyPair } from './signing-key-lookup';

const MiB = 1024 * 1024;

export const BINARY_UPLOAD_OPTIONS = [
  str('content-path', 'File to upload: hashes it, uploads it in parts (resuming an interrupted upload) and waits until it is signable.'),
  str('signing-key-pair', 'Name of a local key pair to sign the binary with once verified.'),
  str('cohort-prn', 'Also create a bundle of the artifact version and a release of it to this cohort (needs --signing-key-pair).'),
  str('bundle-name', 'Name of the bundle made with --cohort-prn (default: file name and hash prefix).'),
  str('release-name', 'Name of the release made with --cohort-prn (default: the bundle name).'),
  int('part-size', 'Part size in MiB, 5 or more (default 8).'),
  int('concurrency', 'Parts uploaded at once (default 4).'),
];

export async function createBinary(run: ActionRun): Promise<unknown> {
  const { body, options } = run;
  const contentPath = options.contentPath as string | undefined;
  if (!contentPath) {
    if (body.hash === undefined || body.size === undefined) throw new UsageError('give --content-path, or --hash and --size for a binary uploaded part by part');
    if (options.signingKeyPair || options.cohortPrn) throw new UsageError('--signing-key-pair and --cohort-prn need --content-path');
    return run.client().request('POST', '/binaries', { body });
  }
  if (body.hash !== undefined || body.size !== undefined) throw new UsageError('--hash and --size are computed from --content-path; do not give them too');
  if (options.cohortPrn && !options.signingKeyPair) throw new UsageError('--cohort-prn needs --signing-key-pair: only signed binaries can be released');
  const partSizeMiB = options.partSize === undefined ? undefined : Number(options.partSize);
  if (partSizeMiB !== undefined && (!Number.isInteger(partSizeMiB) || partSizeMiB < 5)) throw new UsageError('--part-size is a whole number of MiB, 5 or more');
  const concurrency = options.concurrency === undefined ? 4 : Number(options.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new UsageError('--concurrency is 1 to 64');

  const client = run.client();
  // Find the key before uploading, so a typo fails in a second and not after gigabytes.
  const pair = options.signingKeyPair ? await resolveKeyPair(client, run.store.dir, options.signingKeyPair as string) : null;

  let binary: Binary = await uploadBinary(client, {
    filePath: contentPath,
    artifactVersionPrn: body.artifact_version_prn as string,
    target: body.target as string,
    description: body.description as string | undefined,
    customMetadata: body.custom_metadata as Record<string, unknown> | undefined,
    id: body.id as string | undefined,
    partSize: partSizeMiB === undefined ? undefined : partSizeMiB * MiB,
    concurrency,
    onEvent: createProgressReporter(run.io),
  });

  if (pair) {
    const attached = await signAndAttach(client, binary, pair.signing_key_prn, pair.privateKeyPem);
    run.io.stderr.write(attached ? `signed with ${pair.name} (${pair.signing_key_prn})\n` : `already signed with ${pair.name}\n`);
    binary = (await client.request<{ binary: Binary }>('GET', fillPath('/binaries/{prn}', { prn: binary.prn }))).binary;
  }
  if (!options.cohortPrn) return { binary };

  const bundleName = (options.bundleName as string | undefined) ?? `${path.basename(contentPath)}-${binary.hash.slice(0, 12)}`;
  const { bundle } = await client.request<{ bundle: { prn: string } }>('POST', '/bundles', { body: { name: bundleName, artifact_version_prns: [body.artifact_version_prn] } });
  run.io.stderr.write(`created bundle ${bundle.prn}\n`);
  const { release } = await client.request<{ release: { prn: string } }>('POST', '/releases', {
    body: {
      bundle_prn: bundle.prn,
      cohort_prn: options.cohortPrn,
      name: (options.releaseName as string | undefined) ?? bundleName,
      required: false,
      schedule_date: new Date().toISOString(),
    },
  });
  run.io.stderr.write(`created release ${release.prn}\n`);
  return { binary, bundle, release };
}
