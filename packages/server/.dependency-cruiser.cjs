/**
 * The server's architecture rules, checked by `npm run check:architecture` (part of `npm test`).
 * A violation prints `error <rule name>: <from> → <to>` and fails the command. Each rule is
 * explained in ARCHITECTURE.md at the repository root ("Guarded in CI").
 *
 * Type-only imports count (tsPreCompilationDeps): a cycle through `import type` is still a cycle
 * for a reader, and the next runtime import along it would make it a real one.
 */

/** Shared plumbing every context may use: API plumbing, identifiers, search, the read path, the database, blobs. */
const PLUMBING = ['^src/(http|core|search|read-path|db|storage|admission)/', '^src/(platform|config)\\.ts$'];
/** Unit tests and their helpers sit beside pure modules; they may import the test tools. */
const TESTS = '\\.test(-support)?\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No import cycles in the server, type-only imports included.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'routes-use-own-context',
      comment:
        "A context's routes (routes.ts, *-routes.ts) import only their own context (its service, schemas, wire forms) and the shared plumbing; another context is reached through the route's own service.",
      severity: 'error',
      from: { path: '^src/([^/]+)/[^/]*routes\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/$1/', ...PLUMBING] },
    },
    {
      name: 'update-core-is-pure',
      comment: "The update check's core (resolution, phase, version) imports nothing outside itself: no database, no network, no file system, no packages.",
      severity: 'error',
      from: { path: '^src/updates/core/', pathNot: TESTS },
      to: { pathNot: '^src/updates/core/' },
    },
    {
      name: 'core-is-pure',
      comment: 'The identifiers (prn, page cursors, RFC 3339 times) import nothing outside core/.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: TESTS },
      to: { pathNot: '^src/core/' },
    },
    {
      name: 'releases-not-device-api',
      comment: 'Release CRUD, the chain and the phase rules know nothing of device connections.',
      severity: 'error',
      from: { path: '^src/releases/' },
      to: { path: '^src/device-api/' },
    },
    {
      name: 'device-api-not-releases',
      comment: 'The device API admits devices; it reaches the update check only through admission/port.ts and DEVICE_ROUTES.',
      severity: 'error',
      from: { path: '^src/device-api/' },
      to: { path: '^src/(releases|updates)/' },
    },
    {
      name: 'updates-not-device-api',
      comment: "The update check takes the device API's admission through admission/port.ts, never its connection state.",
      severity: 'error',
      from: { path: '^src/updates/' },
      to: { path: '^src/device-api/' },
    },
    {
      name: 'admission-port-is-neutral',
      comment: 'admission/ sits between the device API and the update check, so it imports neither (nor releases/).',
      severity: 'error',
      from: { path: '^src/admission/' },
      to: { path: '^src/(releases|updates|device-api)/' },
    },
    {
      name: 'plumbing-not-contexts',
      comment: "Shared plumbing (http/, core/, search/, read-path/, admission/) uses no context's services or routes; a context's table or row type (schema.ts) is all it may name.",
      severity: 'error',
      from: { path: '^src/(http|core|search|read-path|admission)/' },
      to: { path: '^src/', pathNot: [...PLUMBING, '^src/[^/]+/schema\\.ts$', '^src/events/service\\.ts$'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves to a file or an installed package.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Resolve packages as the bundler and TypeScript ("moduleResolution": "Bundler") do: by their exports.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], mainFields: ['module', 'main', 'types'] },
  },
};
