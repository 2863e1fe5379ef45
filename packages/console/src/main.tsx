import './ui/mantine-styles';
import { MantineProvider } from '@mantine/core';
import { theme, cssVariablesResolver } from './ui/theme';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { lazy, startTransition, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { queryClient } from './api/query-client';
import { loadSession } from './api/session';
import { SessionProvider } from './api/session-context';
import { createConsoleRouter, type ConsoleRouter } from './routes/router';
import { useAfterFirstPaint } from './ui/after-first-paint';

/**
 * How long a signed-in first visit waits for its screen's code and data before the first render.
 * Within it, the screen is drawn once, complete, rather than a frame, then skeletons, then rows
 * (each its own long task on a slow phone); past it, the frame and skeletons are drawn as usual.
 * Without a session the sign-in page is drawn at once.
 */
const FIRST_SCREEN_WAIT_MS = 1000;

const NotificationsHost = lazy(() => import('./ui/NotificationsHost').then((m) => ({ default: m.NotificationsHost })));

/** The notifications host, fetched once the first screen is painted (ui/NotificationsHost.tsx). */
function NotificationsAfterFirstPaint() {
  return useAfterFirstPaint() ? (
    <Suspense fallback={null}>
      <NotificationsHost />
    </Suspense>
  ) : null;
}

const afterMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A first load in tasks none of which is long on a slow phone: the modules' evaluation, then the
 * router's route tree, then the router's first load (matching the URL and running the screen's
 * loader, which takes the answers fleet.html asked for), then the first render.
 */
async function start() {
  await afterMs(0);
  const router = createConsoleRouter();
  if (loadSession()) {
    await afterMs(0);
    await Promise.race([router.load().catch(() => undefined), afterMs(FIRST_SCREEN_WAIT_MS)]);
  }
  // A task later, not in the promise's callback: the router finishes updating its store just
  // after load() resolves, and a store that changes under a transition's render makes React redo
  // the render synchronously, as one long task (seen in profiles of the fleet view).
  await afterMs(0);
  render(router);
}

void start();

function render(router: ConsoleRouter) {
  const root = createRoot(document.getElementById('root')!);
  // As a transition, React renders the first screen in slices of a few milliseconds, yielding to
  // the browser between them, instead of one task that blocks input for as long as it takes.
  startTransition(() =>
    root.render(
      <StrictMode>
        <MantineProvider defaultColorScheme="light" theme={theme} cssVariablesResolver={cssVariablesResolver}>
          <NotificationsAfterFirstPaint />
          <QueryClientProvider client={queryClient}>
            <SessionProvider>
              <RouterProvider router={router} />
            </SessionProvider>
          </QueryClientProvider>
        </MantineProvider>
      </StrictMode>,
    ),
  );
}
