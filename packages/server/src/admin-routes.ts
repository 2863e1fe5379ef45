/** Every context's admin routes, registered in this order. */
import { accountRoutes } from './accounts/routes';
import { sessionRoutes } from './accounts/session-routes';
import { artifactRoutes } from './artifacts/routes';
import { artifactVersionRoutes } from './artifacts/version-routes';
import { caCertificateRoutes } from './certificates/ca-routes';
import { deviceCertificateRoutes } from './certificates/device-certificate-routes';
import { binaryRoutes } from './binaries/routes';
import { partRoutes } from './binaries/part-routes';
import { signatureRoutes } from './binaries/signature-routes';
import { deltaRoutes } from './deltas/routes';
import { bundleRoutes } from './bundles/routes';
import { bundleSignatureRoutes } from './bundle-signatures/routes';
import { claimTokenRoutes } from './claims/routes';
import { bundleOverrideRoutes } from './bundle-overrides/routes';
import { cohortRoutes } from './cohorts/routes';
import { deviceRoutes } from './devices/routes';
import { eventRoutes } from './events/routes';
import { eventStreamRoutes } from './events/stream-routes';
import type { ContextRoutes } from './http/app-types';
import { productRoutes } from './products/routes';
import { releaseRoutes } from './releases/routes';
import { rolloutRoutes } from './rollouts/routes';
import { releaseReportRoutes } from './rollouts/report-routes';
import { updateRoutes } from './updates/routes';
import { signingKeyRoutes } from './signing-keys/routes';
import { webhookRoutes } from './webhooks/routes';
import { tufRoutes } from './tuf/routes';
import { tunnelRoutes } from './tunnels/routes';
import { webConsoleRoutes } from './web-console/routes';
import { blobDownloadRoutes } from './storage/download-routes';
import { consoleAppRoutes } from './console-app/routes';
import { legacyDeploymentRoutes } from './legacy/deployment-routes';
import { legacyFirmwareRoutes } from './legacy/firmware-routes';
import { legacyOrganizationRoutes } from './legacy/org-routes';

export const ADMIN_ROUTES: ContextRoutes[] = [
  accountRoutes,
  sessionRoutes,
  productRoutes,
  eventRoutes,
  eventStreamRoutes,
  cohortRoutes,
  deviceRoutes,
  artifactRoutes,
  artifactVersionRoutes,
  signingKeyRoutes,
  caCertificateRoutes,
  deviceCertificateRoutes,
  binaryRoutes,
  partRoutes,
  signatureRoutes,
  deltaRoutes,
  blobDownloadRoutes,
  bundleRoutes,
  bundleSignatureRoutes,
  claimTokenRoutes,
  webhookRoutes,
  tunnelRoutes,
  webConsoleRoutes,
  releaseRoutes,
  rolloutRoutes,
  releaseReportRoutes,
  bundleOverrideRoutes,
  updateRoutes,
  tufRoutes,
  consoleAppRoutes,
  legacyFirmwareRoutes,
  legacyDeploymentRoutes,
  legacyOrganizationRoutes,
];
