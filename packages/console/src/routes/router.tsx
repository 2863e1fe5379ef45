/**
 * URLs -> screens. Every screen has its own URL under /console/, and filters live in the query
 * string (typed by each route's validateSearch), so any view can be shared as a link.
 * Each screen is its own chunk, loaded when first visited: the first load is the sign-in page
 * and the frame (bench/console.ts measures it).
 */
import { createRootRoute, createRoute, createRouter, lazyRouteComponent, Navigate, Outlet, type RouterHistory } from '@tanstack/react-router';
import { queryClient } from '../api/query-client';
import { useSession } from '../api/session-context';
import { SignIn } from '../features/auth/SignIn';
import type { EventSearch } from '../features/events/EventLog';
import type { FleetSearch } from '../features/fleet/FleetView';
import { prefetchFleet } from '../features/fleet/prefetch';
import type { ReleasesSearch } from '../features/releases/ReleasesPage';
import { shellRoute, useIsShellPage } from '../features/shell/shell-route';
import { Shell } from '../ui/Shell';

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

function Root() {
  const { session } = useSession();
  // The shell page's URL is its own credential: no sign-in and no frame around the terminal.
  if (useIsShellPage()) return <Outlet />;
  if (!session) return <SignIn />;
  return (
    <Shell>
      <Outlet />
    </Shell>
  );
}

const root = createRootRoute({ component: Root });

const index = createRoute({ getParentRoute: () => root, path: '/', component: () => <Navigate to="/fleet" /> });

const fleet = createRoute({
  getParentRoute: () => root,
  path: '/fleet',
  validateSearch: (search: Record<string, unknown>): FleetSearch => ({ q: text(search.q), page: text(search.page) }),
  loaderDeps: ({ search }) => ({ q: search.q, page: search.page }),
  loader: ({ deps }) => prefetchFleet(queryClient, deps),
  component: lazyRouteComponent(() => import('./FleetScreen'), 'FleetScreen'),
});

const device = createRoute({
  getParentRoute: () => root,
  path: '/devices/$prn',
  component: lazyRouteComponent(() => import('./DeviceScreen'), 'DeviceScreen'),
});

const products = createRoute({ getParentRoute: () => root, path: '/products', component: lazyRouteComponent(() => import('../features/products/ProductsPage'), 'ProductsPage') });

const product = createRoute({
  getParentRoute: () => root,
  path: '/products/$prn',
  component: lazyRouteComponent(() => import('./ProductScreen'), 'ProductScreen'),
});

const cohort = createRoute({
  getParentRoute: () => root,
  path: '/cohorts/$prn',
  component: lazyRouteComponent(() => import('./CohortScreen'), 'CohortScreen'),
});

const events = createRoute({
  getParentRoute: () => root,
  path: '/events',
  validateSearch: (search: Record<string, unknown>): EventSearch => ({ type: text(search.type), subtype: text(search.subtype), resource_prn: text(search.resource_prn) }),
  component: lazyRouteComponent(() => import('./EventsScreen'), 'EventsScreen'),
});

const webhooks = createRoute({ getParentRoute: () => root, path: '/webhooks', component: lazyRouteComponent(() => import('../features/webhooks/WebhooksPage'), 'WebhooksPage') });

const webhook = createRoute({
  getParentRoute: () => root,
  path: '/webhooks/$prn',
  component: lazyRouteComponent(() => import('./WebhookScreen'), 'WebhookScreen'),
});

const signingKeys = createRoute({ getParentRoute: () => root, path: '/signing-keys', component: lazyRouteComponent(() => import('../features/signing-keys/SigningKeysPage'), 'SigningKeysPage') });

const caCertificates = createRoute({ getParentRoute: () => root, path: '/ca-certificates', component: lazyRouteComponent(() => import('../features/certificates/CaCertificatesPage'), 'CaCertificatesPage') });

const users = createRoute({ getParentRoute: () => root, path: '/users', component: lazyRouteComponent(() => import('../features/accounts/UsersPage'), 'UsersPage') });

const apiKeys = createRoute({ getParentRoute: () => root, path: '/api-keys', component: lazyRouteComponent(() => import('../features/accounts/ApiKeysPage'), 'ApiKeysPage') });

const sessions = createRoute({ getParentRoute: () => root, path: '/sessions', component: lazyRouteComponent(() => import('../features/sessions/SessionsPage'), 'SessionsPage') });

const artifacts = createRoute({ getParentRoute: () => root, path: '/artifacts', component: lazyRouteComponent(() => import('../features/artifacts/ArtifactsPage'), 'ArtifactsPage') });

const artifact = createRoute({ getParentRoute: () => root, path: '/artifacts/$prn', component: lazyRouteComponent(() => import('./ShippingScreens'), 'ArtifactScreen') });

const artifactVersion = createRoute({ getParentRoute: () => root, path: '/artifact-versions/$prn', component: lazyRouteComponent(() => import('./ShippingScreens'), 'ArtifactVersionScreen') });

const binary = createRoute({ getParentRoute: () => root, path: '/binaries/$prn', component: lazyRouteComponent(() => import('./ShippingScreens'), 'BinaryScreen') });

const bundles = createRoute({ getParentRoute: () => root, path: '/bundles', component: lazyRouteComponent(() => import('../features/bundles/BundlesPage'), 'BundlesPage') });

const bundleOverrides = createRoute({ getParentRoute: () => root, path: '/bundle-overrides', component: lazyRouteComponent(() => import('../features/bundle-overrides/BundleOverridesPage'), 'BundleOverridesPage') });

const bundleOverride = createRoute({ getParentRoute: () => root, path: '/bundle-overrides/$prn', component: lazyRouteComponent(() => import('./ShippingScreens'), 'BundleOverrideScreen') });

const releases = createRoute({
  getParentRoute: () => root,
  path: '/releases',
  validateSearch: (search: Record<string, unknown>): ReleasesSearch => ({ cohort: text(search.cohort) }),
  component: lazyRouteComponent(() => import('./ReleasesScreen'), 'ReleasesScreen'),
});

const release = createRoute({ getParentRoute: () => root, path: '/releases/$prn', component: lazyRouteComponent(() => import('./ReleasesScreen'), 'ReleaseScreen') });

const tree = root.addChildren([index, fleet, device, products, product, cohort, events, webhooks, webhook, signingKeys, caCertificates, users, apiKeys, sessions, artifacts, artifact, artifactVersion, binary, bundles, bundleOverrides, bundleOverride, releases, release, shellRoute(root)]);

/**
 * The console's router. A function, not a module constant: building the route tree takes 10-20 ms
 * on a fast machine, and main.tsx does it in a task of its own rather than inside the evaluation of
 * the modules, already the longest task of a first load on a slow phone. `history` is the
 * browser's unless given (the build's prerender of the fleet frame gives a memory history).
 */
export const createConsoleRouter = (history?: RouterHistory) => createRouter({ routeTree: tree, basepath: '/console', history, defaultNotFoundComponent: () => <Navigate to="/fleet" /> });

export type ConsoleRouter = ReturnType<typeof createConsoleRouter>;

declare module '@tanstack/react-router' {
  interface Register {
    router: ConsoleRouter;
  }
}
