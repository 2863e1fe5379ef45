/** Every context's admin routes, registered in this order. */
import { accountRoutes } from './accounts/routes';
import { artifactRoutes } from './artifacts/routes';
import { artifactVersionRoutes } from './artifacts/version-routes';
import { caCertificateRoutes } from './certificates/ca-routes';
import { deviceCertificateRoutes } from './certificates/device-certificate-routes';
import { cohortRoutes } from './cohorts/routes';
import { deviceRoutes } from './devices/routes';
import { eventRoutes } from './events/routes';
import type { ContextRoutes } from './http/app-types';
import { productRoutes } from './products/routes';
import { signingKeyRoutes } from './signing-keys/routes';

export const ADMIN_ROUTES: ContextRoutes[] = [
  accountRoutes,
  productRoutes,
  eventRoutes,
  cohortRoutes,
  deviceRoutes,
  artifactRoutes,
  artifactVersionRoutes,
  signingKeyRoutes,
  caCertificateRoutes,
  deviceCertificateRoutes,
];
