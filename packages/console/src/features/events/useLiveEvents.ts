/**
 * Follows GET /events/stream (through the SDK's followEvents) while the component is mounted,
 * from just after its first paint (ui/after-first-paint.ts): the stream is not part of a screen's
 * first picture. `onEvent` should be stable or cheap: it is read through a ref, so changing it
 * does not reconnect.
 */
import { followEvents, type CanopyEvent, type EventStreamFilters } from '@canopy/sdk/browser';
import { useEffect, useRef, useState } from 'react';
import { useSession } from '../../api/session-context';
import { useAfterFirstPaint } from '../../ui/after-first-paint';

export function useLiveEvents(filters: EventStreamFilters, onEvent: (event: CanopyEvent) => void, enabled = true): { live: boolean } {
  const { client } = useSession();
  const [live, setLive] = useState(false);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const key = JSON.stringify(filters);
  const painted = useAfterFirstPaint();
  useEffect(() => {
    if (!enabled || !painted) return;
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
  }, [client, key, enabled, painted]);
  return { live };
}
