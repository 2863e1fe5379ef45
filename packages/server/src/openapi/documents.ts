/** The OpenAPI 3.1 document headers; the paths come from the route schemas. */
export function adminOpenApiDocument(publicUrl: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Canopy Admin API',
      version: '1',
      description:
        'Manage products, cohorts, devices, artifacts, binaries, bundles, releases, certificates, tunnels and webhooks. ' +
        'Authenticate with `Authorization: Bearer <api key>`. Errors answer `{"errors": [{"code", "context"}]}`.',
    },
    servers: [{ url: publicUrl, description: 'This server' }],
    components: {
      securitySchemes: { apiKey: { type: 'http' as const, scheme: 'bearer', description: 'An API key or a session token from POST /users/auth.' } },
    },
    security: [{ apiKey: [] }],
  };
}

export function deviceOpenApiDocument(deviceUrl: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Canopy Device API',
      version: '1',
      description: 'Called by devices over HTTPS with a client certificate (mutual TLS) signed by a registered CA certificate.',
    },
    servers: [{ url: deviceUrl, description: 'This server' }],
  };
}
