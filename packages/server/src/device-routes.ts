/**
 * Every context's device API routes, registered in this order after the device API's own
 * (`GET /device/me`, device-api/routes.ts). The device API server (device-api/app.ts)
 * authenticates the client certificate before any of them run; a route reads the calling device
 * with `deviceOf(request)` (http/device-request.ts).
 */
import type { ContextRoutes } from './http/app-types';
import { tunnelDeviceRoutes } from './tunnels/device-routes';
import { updateReportDeviceRoutes } from './update-reports/device-routes';
import { updateDeviceRoutes } from './updates/device-routes';
import { legacyDeviceRoutes } from './legacy/device-routes';
import { claimDeviceRoutes } from './claims/device-routes';
import { tufDeviceRoutes } from './tuf/device-routes';

export const DEVICE_ROUTES: ContextRoutes[] = [updateDeviceRoutes, tunnelDeviceRoutes, updateReportDeviceRoutes, legacyDeviceRoutes, claimDeviceRoutes, tufDeviceRoutes];
