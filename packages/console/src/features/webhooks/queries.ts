/** Webhooks through the SDK's typed client: the list, one webhook, its delivery attempts, and the writes. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { EVENT_CATALOGUE, eventName, type CanopyClient } from '@canopy/sdk/browser';
import { answerOf, listEvery, listPage } from '../../api/lists';
import type { BodyOf, ListItem } from '../../api/paths';
import { useSession } from '../../api/session-context';

/** The events a webhook can subscribe to (the admin API's `enabled_events` enum), from the event catalogue, with what each means. */
export const WEBHOOK_EVENTS = EVENT_CATALOGUE.filter((entry) => entry.subscribable).map((entry) => ({ name: eventName(entry), summary: entry.summary }));

export type Webhook = ListItem<'/webhooks'>;
export type DeliveryAttempt = ListItem<'/webhooks/{prn}/deliveries'>;
/** The body of POST /webhooks. */
export type WebhookBody = BodyOf<'/webhooks', 'post'>;

export const webhookKeys = {
  list: ['webhooks'] as const,
  one: (prn: string) => ['webhook', prn] as const,
  deliveries: (prn: string) => ['webhook-deliveries', prn] as const,
};

export const webhooksQuery = (client: CanopyClient) => queryOptions({ queryKey: webhookKeys.list, queryFn: () => listEvery(client, '/webhooks', 'webhooks', { order: 'asc' }) });

export const webhookQuery = (client: CanopyClient, prn: string) =>
  queryOptions({ queryKey: webhookKeys.one(prn), queryFn: () => answerOf(client.api.GET('/webhooks/{prn}', { params: { path: { prn } } })).then((b) => b.webhook) });

/** The newest 50 attempts; refreshed every few seconds while the page is open (retries land on their own). */
export const deliveriesQuery = (client: CanopyClient, prn: string) =>
  queryOptions({
    queryKey: webhookKeys.deliveries(prn),
    queryFn: () => listPage(client, '/webhooks/{prn}/deliveries', 'deliveries', { limit: 50, order: 'desc' }, { prn }).then((page) => page.items),
    refetchInterval: 3_000,
  });

export function useWebhooks() {
  const { client } = useSession();
  return useQuery(webhooksQuery(client));
}

export function useWebhook(prn: string) {
  const { client } = useSession();
  return useQuery(webhookQuery(client, prn));
}

export function useDeliveries(prn: string) {
  const { client } = useSession();
  return useQuery(deliveriesQuery(client, prn));
}

const at = (prn: string) => ({ params: { path: { prn } } });
export const patchWebhook = (client: CanopyClient, prn: string, body: BodyOf<'/webhooks/{prn}', 'patch'>) => answerOf(client.api.PATCH('/webhooks/{prn}', { ...at(prn), body }));
export const setWebhookState = (client: CanopyClient, prn: string, state: Webhook['state']) => answerOf(client.api.PATCH('/webhooks/{prn}', { ...at(prn), body: { state } }));
export const rollWebhookSecret = (client: CanopyClient, prn: string) => answerOf(client.api.POST('/webhooks/{prn}/roll_secret', { ...at(prn), body: {} }));
export const testFireWebhook = (client: CanopyClient, prn: string) => answerOf(client.api.POST('/webhooks/{prn}/test_fire', at(prn)));
export const deleteWebhook = (client: CanopyClient, prn: string) => answerOf(client.api.DELETE('/webhooks/{prn}', at(prn)));
export const redeliverWebhookEvent = (client: CanopyClient, prn: string, eventPrn: string) => answerOf(client.api.POST('/webhooks/{prn}/redeliver', { ...at(prn), body: { event_prn: eventPrn } }));
