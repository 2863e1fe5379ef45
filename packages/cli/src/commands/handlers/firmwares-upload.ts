/**
 * `canopy firmwares upload --path FILE (--org-name ORG --product-name PRODUCT | --product-prn PRN) [--ttl N]`:
 * a fwup archive to the legacy API, streamed from disk (the SDK's uploadFirmware).
 */
import fs from 'node:fs';
import { uploadFirmware } from '@canopy/sdk';
import { UsageError } from '../../errors';
import type { ActionRun } from '../action';
import { int, str } from '../fields';

export const FIRMWARE_UPLOAD_OPTIONS = [
  str('path', 'The fwup archive (.fw) to upload.', { required: true, example: './gateway.fw' }),
  str('org-name', "The organization's name (with --product-name: the organization-scoped path)."),
  str('product-name', "The product's name (with --org-name)."),
  str('product-prn', 'The product (the flat path), instead of --org-name and --product-name.'),
  int('ttl', 'Seconds after which the firmware is deleted unless a deployment uses it.'),
];

export async function uploadFirmwareAction(run: ActionRun): Promise<unknown> {
  const { options } = run;
  const file = options.path as string | undefined;
  if (!file) throw new UsageError('--path is required');
  if (!fs.existsSync(file)) throw new UsageError(`--path: no such file ${file}`);
  const orgName = options.orgName as string | undefined;
  const productName = options.productName as string | undefined;
  const productPrn = options.productPrn as string | undefined;
  if (Boolean(orgName) !== Boolean(productName)) throw new UsageError('give --org-name and --product-name together');
  if (Boolean(orgName) === Boolean(productPrn)) throw new UsageError('give either --org-name and --product-name, or --product-prn');
  const ttl = options.ttl as number | undefined;
  return { firmware: await uploadFirmware(run.client(), file, { orgName, productName, productPrn }, ttl) };
}
