import { describe, expect, it } from 'vitest';
import { formatMetaConf, parseMetaConf } from './meta-conf';

const UUID = '3c5d2a4e-8f1b-4c6d-9e7f-0a1b2c3d4e5f';
const base = { 'meta-product': 'gateway', 'meta-version': '1.2.0', 'meta-uuid': UUID };

describe('parseMetaConf', () => {
  it('reads the meta fields of a real-looking meta.conf and skips its blocks', () => {
    const text = `meta-product = "gateway"
meta-description = "Gateway \\"main\\" image"
meta-version = "1.2.0"
meta-platform = "rpi4"
meta-architecture = "aarch64"
meta-author = "Ops"
meta-uuid = "${UUID.toUpperCase()}"
meta-fwup-version = "1.10.1"
meta-creation-date = "2025-06-11T05:04:10Z"
# a comment with "quotes" = and { braces
file-resource rootfs.img {
  length = 1024
  blake2b-256 = "00ff"
  meta-version = "ignored inside a block"
}
task complete {
  on-resource rootfs.img { raw_write(63488) }
}
`;
    const result = parseMetaConf(text);
    expect(result).toEqual({
      ok: true,
      fields: {
        'meta-product': 'gateway',
        'meta-version': '1.2.0',
        'meta-platform': 'rpi4',
        'meta-architecture': 'aarch64',
        'meta-author': 'Ops',
        'meta-description': 'Gateway "main" image',
        'meta-vcs-identifier': null,
        'meta-misc': null,
        'meta-uuid': UUID,
        'meta-fwup-version': '1.10.1',
      },
    });
  });

  it('names the first problem', () => {
    expect(parseMetaConf(formatMetaConf({ 'meta-product': 'p', 'meta-version': '1' }))).toMatchObject({ ok: false, reason: 'missing_key', key: 'meta-uuid' });
    expect(parseMetaConf(formatMetaConf({ ...base, 'meta-version': '' }))).toMatchObject({ ok: false, reason: 'missing_key', key: 'meta-version' });
    expect(parseMetaConf(formatMetaConf({ ...base, 'meta-uuid': 'not-a-uuid' }))).toMatchObject({ ok: false, reason: 'invalid_uuid' });
    expect(parseMetaConf('meta-product = "unterminated')).toMatchObject({ ok: false, reason: 'syntax' });
    expect(parseMetaConf(`${formatMetaConf(base)}task x {`)).toMatchObject({ ok: false, reason: 'syntax' });
    expect(parseMetaConf(`${formatMetaConf(base)}}`)).toMatchObject({ ok: false, reason: 'syntax' });
    expect(parseMetaConf('meta-product =')).toMatchObject({ ok: false, reason: 'syntax' });
    expect(parseMetaConf(formatMetaConf({ ...base, 'meta-misc': 'x'.repeat(1025) }))).toMatchObject({ ok: false, reason: 'value_too_long', key: 'meta-misc' });
    expect(parseMetaConf('')).toMatchObject({ ok: false, reason: 'missing_key' });
    expect(parseMetaConf('\u0000\u0001 binary junk {{')).toMatchObject({ ok: false });
  });

  it('round-trips what formatMetaConf writes, escapes included', () => {
    const fields = { ...base, 'meta-author': 'A "quoted" \\ name', 'meta-misc': 'multi\nline' };
    const result = parseMetaConf(formatMetaConf(fields));
    expect(result.ok && result.fields).toMatchObject({ 'meta-author': 'A "quoted" \\ name', 'meta-misc': 'multi\nline' });
  });
});
