/** The shell page's route (`/console/shell#<token>`), kept beside the page so router.tsx changes by a line. */
import { createRoute, lazyRouteComponent, useRouterState, type AnyRootRoute } from '@tanstack/react-router';

export const SHELL_PATH = '/shell';

export const shellRoute = (root: AnyRootRoute) => createRoute({ getParentRoute: () => root, path: SHELL_PATH, component: lazyRouteComponent(() => import('./ShellPage'), 'ShellPage') });

/** True on the shell page, which needs no session. */
export const useIsShellPage = () => useRouterState({ select: (state) => state.location.pathname === SHELL_PATH });
