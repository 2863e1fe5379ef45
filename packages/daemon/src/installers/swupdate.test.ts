import { expect, it } from 'vitest';
import { swupdateError, swupdateProgress } from './swupdate.ts';

it('turns SWUpdate 2022.12 log lines into progress steps', () => {
  expect(swupdateProgress('[INFO ] : SWUPDATE running :  Installation in progress')).toEqual({ fraction: 0.5, step: 'SWUPDATE running :  Installation in progress' });
  expect(swupdateProgress('[TRACE] : SWUPDATE running :  [swupdate_verify_file] : Verified OK')?.fraction).toBe(0.2);
  expect(swupdateProgress('[WARN ] : SWUPDATE running :  [mtd_init] : MTD is not present in the system')).toBeNull();
});

it('takes the first error line, which names the cause', () => {
  const output = [
    '[TRACE] : SWUPDATE running :  [extract_files] : Found file',
    '[ERROR] : SWUPDATE failed [0] ERROR : HASH mismatch : 2bc5 <--> 5137',
    '[ERROR] : SWUPDATE failed [1] Image invalid or corrupted. Not installing ...',
  ].join('\n');
  expect(swupdateError(output)).toBe('ERROR : HASH mismatch : 2bc5 <--> 5137');
  expect(swupdateError('[INFO ] : fine')).toBeNull();
});
