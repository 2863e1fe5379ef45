/**
 * Webhook signing lives in the SDK (packages/sdk/src/webhook-signature.ts, node:crypto only), so the
 * sender and receivers share one implementation; the server's modules import it from here.
 */
export { PUBLISHED_AT_HEADER, SIGNATURE_HEADER, signatureHeader, signWebhook, verifyWebhook } from '@canopy/sdk/webhook-signature';
