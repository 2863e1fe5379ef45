/** Webhooks through the SDK client: the list, one webhook, and its delivery attempts. */
import { useQuery } from '@tanstack/react-query';
import { EVENT_CATALOGUE, eventName } from '@canopy/sdk/browser';
import { listEvery, listPage } from '../../api/lists';
import { useSession } from '../../api/session-context';

/** The events a webhook can subscribe to (the admin API's `enabled_events` enum), from the event catalogue, with what each means. */
export const WEBHOOK_EVENTS = EVENT_CATALOGUE.filter((entry) => entry.subscribable).map((entry) => ({ name: eventName(entry), summary: entry.summary }));

export interface Webhook {
  prn: string;
  url: string;
  description: string | null;
  enabled_events: string[];
  state: 'enabled' | 'disabled';
  inserted_at: string;
  updated_at: string;
}

export interface DeliveryAttempt {
  delivery_id: string;
  event_prn: string;
  attempt: number;
  attempted_at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  detail: string | null;
  next_attempt_at: string | null;
}

export const webhookPath = (prn: string) => `/webhooks/${encodeURIComponent(prn)}`;

export function useWebhooks() {
  const { client } = useSession();
  return useQuery({ queryKey: ['webhooks'], queryFn: () => listEvery<Webhook>(client, '/webhooks', 'webhooks', { order: 'asc' }) });
}

export function useWebhook(prn: string) {
  const { client } = useSession();
  return useQuery({ queryKey: ['webhook', prn], queryFn: () => client.request<{ webhook: Webhook }>('GET', webhookPath(prn)).then((b) => b.webhook) });
}

/** The newest 50 attempts; refreshed every few seconds while the page is open (retries land on their own). */
export function useDeliveries(prn: string) {
  const { client } = useSession();
  return useQuery({
    queryKey: ['webhook-deliveries', prn],
    queryFn: () => listPage<DeliveryAttempt>(client, `${webhookPath(prn)}/deliveries`, 'deliveries', { limit: 50, order: 'desc' }).then((page) => page.items),
    refetchInterval: 3_000,
  });
}
