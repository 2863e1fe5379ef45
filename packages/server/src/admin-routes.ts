/** Every context's admin routes, registered in this order. */
import { accountRoutes } from './accounts/routes';
import { binaryRoutes } from './binaries/routes';
import { partRoutes } from './binaries/part-routes';
import { eventRoutes } from './events/routes';
import type { ContextRoutes } from './http/app-types';
import { productRoutes } from './products/routes';
import { blobDownloadRoutes } from './storage/download-routes';

export const ADMIN_ROUTES: ContextRoutes[] = [accountRoutes, productRoutes, eventRoutes, binaryRoutes, partRoutes, blobDownloadRoutes];
