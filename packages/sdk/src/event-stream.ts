/**
 * Follows GET /events/stream: parses its Server-Sent Events, and reconnects after a dropped
 * connection with the last event's prn as `Last-Event-ID`, so no event is missed or repeated.
 * Uses fetch rather than the browser's EventSource, which cannot send the Authorization header.
 * Works in browsers and Node (it imports nothing from Node).
 */
import type { CanopyClient, Query } from './client-core';
import { CanopyApiError } from './errors';
import { createSseParser } from './sse-parser';

/** An event as GET /events lists it. */
export interface CanopyEvent {
  version: 1;
  prn: string;
  type: string;
  inserted_at: string;
  data: { type: string; data: Record<string, unknown> };
  actor_prn: string | null;
  resource_prn: string | null;
}

export interface EventStreamFilters {
  type?: string;
  subtype?: string;
  actor_prn?: string;
  resource_prn?: string;
  inserted_at_gte?: string;
  inserted_at_lt?: string;
}

export interface FollowEventsOptions {
  filters?: EventStreamFilters;
  /** Resume after this event prn (for example the newest one a list already showed). */
  lastEventId?: string | null;
  onEvent(event: CanopyEvent): void;
  /** Called with true when a connection opens, false when it drops (before reconnecting). */
  onConnection?(open: boolean): void;
  /** A refusal (4xx): the stream stops and does not reconnect. */
  onError?(error: CanopyApiError): void;
  signal?: AbortSignal;
  /** Delay before reconnecting when the server sent no `retry:` (ms). */
  reconnectMs?: number;
}

/** Follows the stream until `signal` aborts or the server refuses it. Resolves when it stops. */
export async function followEvents(client: CanopyClient, options: FollowEventsOptions): Promise<void> {
  let lastEventId = options.lastEventId ?? null;
  let retryMs = options.reconnectMs ?? 2000;
  const query = { ...(options.filters ?? {}) } as Query;
  const path = `${client.baseUrl}/events/stream`;
  while (!options.signal?.aborted) {
    try {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
      const search = params.toString();
      const response = await client.fetch(`${path}${search ? `?${search}` : ''}`, {
        headers: { ...client.headers, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        signal: options.signal,
      });
      if (!response.ok) {
        const error = await CanopyApiError.fromResponse(response, 'GET', '/events/stream');
        if (response.status >= 400 && response.status < 500) {
          options.onError?.(error);
          return;
        }
        throw error;
      }
      options.onConnection?.(true);
      const parser = createSseParser();
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const message of parser.push(value)) {
          if (message.id) lastEventId = message.id;
          options.onEvent(JSON.parse(message.data) as CanopyEvent);
        }
        if (parser.retryMs !== null) retryMs = parser.retryMs;
      }
    } catch (error) {
      if (options.signal?.aborted || (error as Error)?.name === 'AbortError') return;
    }
    options.onConnection?.(false);
    await new Promise((resolve) => setTimeout(resolve, retryMs));
  }
}
