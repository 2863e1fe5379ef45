/**
 * URLs the server serves itself without an API key (filesystem-store part uploads and
 * downloads): the path and an expiry time, HMAC-SHA256 signed with a key derived from
 * CANOPY_SECRET_KEY. Any changed character, or a time past the expiry, fails verification.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export type UrlPurpose = 'upload' | 'download';

export interface SignedUrls {
  /** `${publicUrl}${path}?expires=<unix seconds>&signature=<hex>` */
  sign(purpose: UrlPurpose, path: string, ttlSeconds: number, now?: number): string;
  /** True when the signature matches this purpose, path and expiry, and the expiry has not passed. */
  verify(purpose: UrlPurpose, path: string, expires: unknown, signature: unknown, now?: number): boolean;
}

/** A key of its own for URLs, so a leaked URL signature says nothing about the secret box key. */
export function deriveUrlKey(secretKeyHex: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secretKeyHex, 'hex'), Buffer.alloc(0), 'canopy signed urls v1', 32));
}

export function createSignedUrls(key: Buffer, publicUrl: () => string): SignedUrls {
  const mac = (purpose: UrlPurpose, path: string, expires: number) => createHmac('sha256', key).update(`${purpose}\n${path}\n${expires}`).digest();
  const nowSeconds = (now?: number) => Math.floor((now ?? Date.now()) / 1000);
  return {
    sign(purpose, path, ttlSeconds, now) {
      const expires = nowSeconds(now) + ttlSeconds;
      return `${publicUrl()}${path}?expires=${expires}&signature=${mac(purpose, path, expires).toString('hex')}`;
    },
    verify(purpose, path, expires, signature, now) {
      if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires)) return false;
      if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/.test(signature)) return false;
      const expected = mac(purpose, path, Number(expires));
      if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return false;
      return Number(expires) > nowSeconds(now);
    },
  };
}
