/** Every context's admin routes, registered in this order. */
import { accountRoutes } from './accounts/routes';
import { bundleOverrideRoutes } from './bundle-overrides/routes';
import { eventRoutes } from './events/routes';
import type { ContextRoutes } from './http/app-types';
import { productRoutes } from './products/routes';
import { releaseRoutes } from './releases/routes';

export const ADMIN_ROUTES: ContextRoutes[] = [accountRoutes, productRoutes, eventRoutes, releaseRoutes, bundleOverrideRoutes];
