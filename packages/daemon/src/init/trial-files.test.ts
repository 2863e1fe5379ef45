import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../config/schema.ts';
import { parseCanopyMetadata } from '../installers/metadata.ts';
import { signingKeyPem, trialConfig, trialMetadata } from './trial-files.ts';

describe('the trial files', () => {
  it('a configuration the schema takes, everything inside the folder, a reboot that only records', () => {
    const config = validateConfig(trialConfig('/tmp/trial dir', 'https://127.0.0.1:4001', 10));
    expect(config.update_poll_interval).toBe(10);
    expect(config.trusted_signing_keys).toEqual(['/tmp/trial dir/release.pub.pem']);
    expect([config.download_dir, config.state_dir, config.device_api.private_key_path].every((p) => p.startsWith('/tmp/trial dir/'))).toBe(true);
    expect(config.reboot_command[0]).toBe('sh');
    expect(config.reboot_command).not.toContain('reboot');
    expect(config.reboot_command.at(-1)).toBe('/tmp/trial dir/reboots.log');
    expect(config.uboot_environment).toBeUndefined();
  });

  it('custom metadata the daemon reads as the file installer into the folder, without a reboot', () => {
    const parsed = parseCanopyMetadata(trialMetadata('/tmp/trial'));
    expect(parsed).toEqual({ ok: true, metadata: { installer: 'file', reboot_required: false, file: { path: '/tmp/trial/installed/app.bin', mode: 0o644 } } });
  });

  it('the release key as PEM from either stored form of a signing key', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const raw = publicKey.export({ type: 'spki', format: 'der' }).subarray(-32).toString('base64');
    expect(signingKeyPem(raw)).toBe(pem);
    expect(signingKeyPem(pem)).toBe(pem);
    expect(() => signingKeyPem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString())).toThrow(/signing keys are Ed25519, this one is ec/);
  });
});
