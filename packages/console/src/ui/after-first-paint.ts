/**
 * `useAfterFirstPaint()` is false until the browser has painted the frame after the calling
 * component's first commit. What a screen does not need for its first picture waits for it: the
 * live event stream and the notifications host. Started with the first render, their requests
 * and code would sit between a slow phone and the first paint (Lighthouse counts every request
 * begun before the paint as needed for it; bench/console.ts). A tab opened in the background
 * paints, and so starts them, when it is first shown.
 */
import { startTransition, useEffect, useState } from 'react';

export function useAfterFirstPaint(): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    let task: ReturnType<typeof setTimeout> | undefined;
    // A frame's callback runs just before that frame is painted; a task queued from it runs after.
    const frame = requestAnimationFrame(() => {
      // As a transition: what it starts is drawn in slices, not one task that blocks input.
      task = setTimeout(() => startTransition(() => setPainted(true)), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(task);
    };
  }, []);
  return painted;
}
