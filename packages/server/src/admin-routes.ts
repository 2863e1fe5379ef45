/** Every context's admin routes, registered in this order. */
import { accountRoutes } from './accounts/routes';
import { eventRoutes } from './events/routes';
import type { ContextRoutes } from './http/app-types';
import { productRoutes } from './products/routes';
import { webhookRoutes } from './webhooks/routes';

export const ADMIN_ROUTES: ContextRoutes[] = [accountRoutes, productRoutes, eventRoutes, webhookRoutes];
