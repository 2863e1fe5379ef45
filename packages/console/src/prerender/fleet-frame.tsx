/**
 * The fleet view's frame as HTML, rendered at build time into fleet.html
 * (vite-plugins/fleet-frame.ts): the header, the navigation, the title, the filter and the
 * skeletons the view shows while its first page loads, from the same components the console
 * renders. A browser on a slow link paints it once the stylesheet has arrived, about a second
 * before the code has: the operator sees the screen take shape instead of a blank page. It is
 * inert (nothing in it answers input) and replaced whole by the first render of main.tsx.
 *
 * Rendered without a session: who is signed in is filled in by fleet.html's inline script, and
 * an admin's extra navigation links appear with the first render.
 */
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryHistory, RouterContextProvider } from '@tanstack/react-router';
import { renderToString } from 'react-dom/server';
import { SessionProvider } from '../api/session-context';
import { FleetView } from '../features/fleet/FleetView';
import { createConsoleRouter } from '../routes/router';
import { Shell } from '../ui/Shell';
import { cssVariablesResolver, theme } from '../ui/theme';

export function renderFleetFrame(): string {
  const router = createConsoleRouter(createMemoryHistory({ initialEntries: ['/console/fleet'] }));
  return renderToString(
    // Without the theme's CSS variables: their style recalculation, on the root and so inherited by
    // every element, cost the frame most of its work on a slow phone (bench/console.ts), and the
    // first render adds them anyway. Until then the frame has the stylesheet's default colours.
    <MantineProvider defaultColorScheme="light" theme={theme} cssVariablesResolver={cssVariablesResolver} withCssVariables={false}>
      <QueryClientProvider client={new QueryClient()}>
        <SessionProvider>
          <RouterContextProvider router={router}>
            <Shell>
              <FleetView search={{}} onSearch={() => {}} />
            </Shell>
          </RouterContextProvider>
        </SessionProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
}
