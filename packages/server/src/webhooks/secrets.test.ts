import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../crypto/secret-box';
import { generateWebhookSecret, MAX_OPENED_SECRETS, signingSecrets } from './secrets';

const box = createSecretBox('ab'.repeat(32));
const webhookSealing = (secret: string, previous?: { secret: string; expiresAt: string }) => ({
  secretSealed: box.seal(secret),
  previousSecretSealed: previous ? box.seal(previous.secret) : null,
  previousSecretExpiresAt: previous?.expiresAt ?? null,
});

describe('webhook signing secrets', () => {
  it('opens the current secret every time, and the new one right after a roll', () => {
    const first = generateWebhookSecret();
    const webhook = webhookSealing(first);
    expect(signingSecrets(box, webhook)).toEqual([first]);
    expect(signingSecrets(box, webhook)).toEqual([first]);
    const second = generateWebhookSecret();
    const rolled = webhookSealing(second, { secret: first, expiresAt: '2999-01-01 00:00:00+00' });
    expect(signingSecrets(box, rolled)).toEqual([second, first]);
    expect(signingSecrets(box, rolled, new Date('3000-01-01T00:00:00Z'))).toEqual([second]);
  });

  it('never answers for a box what another box opened: a secret sealed under one key does not open under another', () => {
    const webhook = webhookSealing(generateWebhookSecret());
    signingSecrets(box, webhook);
    expect(() => signingSecrets(createSecretBox('cd'.repeat(32)), webhook)).toThrow();
  });

  it('keeps answering correctly past its bound', () => {
    const secrets = Array.from({ length: MAX_OPENED_SECRETS + 10 }, () => generateWebhookSecret());
    const sealed = secrets.map((secret) => webhookSealing(secret));
    sealed.forEach((webhook, i) => expect(signingSecrets(box, webhook)).toEqual([secrets[i]]));
    sealed.forEach((webhook, i) => expect(signingSecrets(box, webhook)).toEqual([secrets[i]]));
  });
});
