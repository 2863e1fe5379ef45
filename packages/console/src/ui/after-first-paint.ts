/**
 * `useAfterFirstPaint()` is false until the browser has shown the frame after the calling
 * component's first commit, and the page's first contentful paint with it. What a screen does not
 * need for its first picture waits for it: the live event stream and the notifications host.
 * Started with the first render, their requests and code would sit between a slow phone and the
 * first paint: Lighthouse counts every request begun before the largest paint is shown as needed
 * for it (bench/console.ts). A tab opened in the background paints, and so starts them, when it is
 * first shown.
 */
import { startTransition, useEffect, useState } from 'react';

/**
 * Calls `then` once the page's first contentful paint has been shown: the paint timing entry is
 * reported only after the frame reached the screen, which is later than any frame callback. At
 * once (in a task) when it already has been, or when the browser reports no paint timing.
 */
function afterFirstContentfulPaint(then: () => void): () => void {
  if (typeof PerformanceObserver === 'undefined' || !PerformanceObserver.supportedEntryTypes?.includes('paint')) {
    const task = setTimeout(then, 0);
    return () => clearTimeout(task);
  }
  const observer = new PerformanceObserver((entries) => {
    if (entries.getEntriesByName('first-contentful-paint').length === 0) return;
    observer.disconnect();
    then();
  });
  observer.observe({ type: 'paint', buffered: true });
  return () => observer.disconnect();
}

export function useAfterFirstPaint(): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    let stop = () => {};
    // A frame's callback runs just before that frame is painted; the next frame's runs after it.
    let frame = requestAnimationFrame(() => {
      frame = requestAnimationFrame(() => {
        // As a transition: what it starts is drawn in slices, not one task that blocks input.
        stop = afterFirstContentfulPaint(() => startTransition(() => setPainted(true)));
      });
    });
    return () => {
      cancelAnimationFrame(frame);
      stop();
    };
  }, []);
  return painted;
}
