import { expect, it } from 'vitest';
import { raucProgress, slotsOf, type RaucStatus } from './rauc.ts';

it('reads the booted and primary slots from rauc status JSON (RAUC 1.8)', () => {
  const status: RaucStatus = JSON.parse(
    '{"compatible":"x","variant":"","booted":"A","boot_primary":"rootfs.1","slots":[{"rootfs.1":{"class":"rootfs","device":"/b","type":"raw","bootname":"B","state":"inactive","boot_status":"good"}},{"rootfs.0":{"class":"rootfs","device":"/a","type":"raw","bootname":"A","state":"booted","boot_status":"good"}}]}',
  );
  expect(slotsOf(status)).toEqual({ booted: 'A', primary: 'B' });
  expect(slotsOf({ ...status, boot_primary: null })).toEqual({ booted: 'A', primary: null });
});

it('parses rauc install progress lines', () => {
  expect(raucProgress(' 90% Copying image to rootfs.1')).toEqual({ fraction: 0.9, step: 'Copying image to rootfs.1' });
  expect(raucProgress('100% Installing done.')).toEqual({ fraction: 1, step: 'Installing done.' });
  expect(raucProgress('installing')).toBeNull();
});
