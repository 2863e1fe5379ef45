/** Every table of every context, gathered for drizzle-kit and for typed queries. */
export * from '../accounts/schema';
export * from '../products/schema';
export * from '../cohorts/schema';
export * from '../devices/schema';
export * from '../artifacts/schema';
export * from '../signing-keys/schema';
export * from '../events/schema';
export * from '../workers/schema';
export * from '../binaries/schema';
export * from '../bundles/schema';
export * from '../certificates/schema';
export * from '../webhooks/schema';
export * from '../tunnels/schema';
export * from '../web-console/schema';
export * from '../releases/schema';
export * from '../bundle-overrides/schema';
