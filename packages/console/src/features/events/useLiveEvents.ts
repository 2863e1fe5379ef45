/**
 * Follows GET /events/stream (through the SDK's followEvents) while the component is mounted.
 * `onEvent` should be stable or cheap: it is read through a ref, so changing it does not reconnect.
 */
import { followEvents, type CanopyEvent, type EventStreamFilters } from '@canopy/sdk/browser';
import { useEffect, useRef, useState } from 'react';
import { useSession } from '../../api/session-context';

export function useLiveEvents(filters: EventStreamFilters, onEvent: (event: CanopyEvent) => void, enabled = true): { live: boolean } {
  const { client } = useSession();
  const [live, setLive] = useState(false);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const key = JSON.stringify(filters);
  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    void followEvents(client, {
      filters: JSON.parse(key) as EventStreamFilters,
      signal: controller.signal,
      onEvent: (event) => handler.current(event),
      onConnection: setLive,
      onError: () => setLive(false),
    });
    return () => {
      controller.abort();
      setLive(false);
    };
  }, [client, key, enabled]);
  return { live };
}
