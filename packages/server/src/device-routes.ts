/**
 * Every context's device API routes (served over mutual TLS on CANOPY_DEVICE_PORT).
 * The device API server authenticates the client certificate before any of these run and
 * puts the device on `request.device` (see device-api/).
 */
import type { ContextRoutes } from './http/app-types';

export const DEVICE_ROUTES: ContextRoutes[] = [];
