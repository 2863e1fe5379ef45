/** Every context's admin routes, registered in this order. */
import { accountRoutes } from './accounts/routes';
import { caCertificateRoutes } from './certificates/ca-routes';
import { deviceCertificateRoutes } from './certificates/device-certificate-routes';
import { eventRoutes } from './events/routes';
import type { ContextRoutes } from './http/app-types';
import { productRoutes } from './products/routes';

export const ADMIN_ROUTES: ContextRoutes[] = [accountRoutes, productRoutes, eventRoutes, caCertificateRoutes, deviceCertificateRoutes];
