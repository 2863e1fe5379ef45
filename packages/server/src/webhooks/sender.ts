/** One outbound HTTPS client per platform (its keep-alive pool and trust anchors), made on first use. */
import type { Platform } from '../platform';
import { createWebhookSender, type WebhookSender } from './outbound';

const senders = new WeakMap<Platform, WebhookSender>();

export function senderFor(platform: Platform): WebhookSender {
  let sender = senders.get(platform);
  if (!sender) {
    sender = createWebhookSender({
      allowPrivate: platform.config.webhookAllowPrivate,
      timeoutMs: platform.config.webhookTimeoutMs,
      caFiles: platform.config.webhookCaFiles,
    });
    senders.set(platform, sender);
  }
  return sender;
}

export function closeSender(platform: Platform): void {
  senders.get(platform)?.close();
  senders.delete(platform);
}
