/**
 * Every admin resource action of the canopy CLI (spec 1 section 2 and section 7), as data.
 * test/command-coverage.test.ts fails for any action here that no test runs against a real server.
 */
import { EVENT_SUBTYPES, EVENT_TYPES, SUBSCRIBABLE_EVENTS } from '@canopy/sdk/event-catalogue';
import type { ActionDef, ResourceDef } from './action';
import { crud, examplePrn, prnArg } from './crud';
import { bool, duration, fileBase64, int, json, list, num, str } from './fields';
import { createBinary, BINARY_UPLOAD_OPTIONS } from './handlers/binaries-create';
import { createBinarySignature, BINARY_SIGNATURE_OPTIONS } from './handlers/binary-signatures-create';
import { createBundleSignature, BUNDLE_SIGNATURE_OPTIONS } from './handlers/bundle-signatures-create';
import { createSigningKey, SIGNING_KEY_OPTIONS } from './handlers/signing-keys-create';
import { printSigningKeyPem } from './handlers/signing-keys-public-key';
import { FIRMWARE_UPLOAD_OPTIONS, uploadFirmwareAction } from './handlers/firmwares-upload';
import { X509_RESOURCE } from './handlers/x509';

const name = (what: string, required = false) => str('name', `Name of the ${what}, 1 to 128 characters.`, { required, example: `${what.replace(/ /g, '-')}-1` });
const description = (what: string) => str('description', `Description of the ${what}, 1 to 256 characters.`);
const customMetadata = json('custom-metadata', 'Free-form JSON object (or @file.json), at most 1,000,000 bytes.');
const id = str('id', 'Caller-chosen UUID; the prn then ends in it.');
const prnField = (flag: string, what: string, type: string, required = false) => str(flag, `Resource name of the ${what}.`, { required, example: examplePrn(type) });

/**
 * Safe rollouts beside the release CRUD: progress (`rollout`), `dry-run` (the create's flags,
 * nothing written), `pause` / `resume` / `cancel`, the penalty box and `revert` (site/docs: guides/rolling-out-safely).
 */
function releaseActions(actions: ActionDef[]): ActionDef[] {
  const create = actions.find((action) => action.name === 'create')!;
  return [
    ...actions,
    {
      name: 'rollout',
      summary: 'Rollout progress: devices per reported status, devices on the release, halt state, and the devices not eligible by reason.',
      method: 'GET',
      path: '/releases/{prn}/rollout',
      args: [prnArg('release', 'release')],
      examples: [`canopy releases rollout ${examplePrn('release')}`],
    },
    {
      name: 'dry-run',
      summary: 'What creating this release would do now: valid or not (with the errors), its position, and the devices it would reach. Writes nothing.',
      method: 'POST',
      path: '/releases/dry_run',
      body: create.body,
      examples: [`canopy releases dry-run --bundle-prn ${examplePrn('bundle')} --cohort-prn ${examplePrn('cohort')} --name v2 --required false --schedule-date 2025-01-01T00:00:00Z --phase-value 0.1`],
    },
    ...(
      [
        ['pause', 'Pause the release: no new offers (devices holding a phase slot keep theirs); 409 release_cancelled for a cancelled one.'],
        ['resume', 'Resume a paused or halted release (clears paused_at and halted_at).'],
        ['cancel', 'Cancel the release for good: devices that have not started it stay where they are.'],
      ] as const
    ).map(([action, summary]) => ({
      name: action,
      summary,
      method: 'POST' as const,
      path: `/releases/{prn}/${action}`,
      args: [prnArg('release', 'release')],
      examples: [`canopy releases ${action} ${examplePrn('release')}`],
    })),
    {
      name: 'penalty-box',
      summary: 'Devices whose failures of the release are counted, and whether each rests from it now (resting ones first).',
      method: 'GET',
      path: '/releases/{prn}/penalty_box',
      args: [prnArg('release', 'release')],
      examples: [`canopy releases penalty-box ${examplePrn('release')}`],
    },
    {
      name: 'penalty-box-release',
      summary: 'Release a device from the penalty box of the release: its failures are forgotten and it may be offered the release at once.',
      method: 'DELETE',
      path: '/releases/{prn}/penalty_box/{device_prn}',
      args: [prnArg('release', 'release'), { name: 'device_prn', description: 'Resource name of the device.', example: examplePrn('device') }],
      examples: [`canopy releases penalty-box-release ${examplePrn('release')} ${examplePrn('device')}`],
    },
    {
      name: 'revert',
      summary: 'Disable the release and append a required release carrying the bundle of the release before it (409 nothing_to_revert_to for the first).',
      method: 'POST',
      path: '/releases/{prn}/revert',
      args: [prnArg('release', 'release')],
      body: [str('name', 'Name of the new release.', { required: true, example: 'back to 1.4.2' }), str('version', 'Version the new release declares.')],
      examples: [`canopy releases revert ${examplePrn('release')} --name 'back to 1.4.2'`],
    },
  ];
}

export const RESOURCES: ResourceDef[] = [
  {
    command: 'artifacts',
    description: 'Artifacts: the named software components (firmware, applications) that versions belong to.',
    actions: crud({
      command: 'artifacts', path: '/artifacts', noun: 'artifact', plural: 'artifacts', prnType: 'artifact',
      actions: ['create', 'get', 'list', 'update', 'delete'],
      create: [name('artifact', true), description('artifact'), customMetadata, id],
      update: [name('artifact'), description('artifact'), customMetadata],
    }),
  },
  {
    command: 'artifact-versions',
    description: 'Artifact versions: one release of an artifact, holding one binary per target.',
    actions: crud({
      command: 'artifact-versions', path: '/artifact_versions', noun: 'artifact version', plural: 'artifact_versions', prnType: 'artifact_version',
      actions: ['create', 'get', 'list', 'update', 'delete'],
      create: [
        prnField('artifact-prn', 'artifact', 'artifact', true),
        str('version', 'Version, 1 to 128 characters (semantic versions sort best).', { required: true, example: '1.4.2' }),
        description('artifact version'),
        customMetadata,
        id,
      ],
      update: [str('version', 'Version, 1 to 128 characters.'), description('artifact version'), customMetadata],
      listQuery: [str('artifact-prn', 'Only the versions of this artifact (its prn).')],
    }),
  },
  {
    command: 'binaries',
    description: 'Binaries: the file of an artifact version for one target, uploaded in parts, verified and signed.',
    actions: crud({
      command: 'binaries', path: '/binaries', noun: 'binary', plural: 'binaries', prnType: 'binary',
      actions: ['create', 'get', 'list', 'update', 'delete'],
      create: [
        prnField('artifact-version-prn', 'artifact version', 'artifact_version', true),
        str('target', 'Target triplet, e.g. aarch64-unknown-linux-gnu.', { required: true, example: 'aarch64-unknown-linux-gnu' }),
        str('hash', 'Lowercase hex SHA-256 of the whole file (computed for you with --content-path).'),
        int('size', 'Size in bytes (computed for you with --content-path).'),
        description('binary'),
        customMetadata,
        id,
      ],
      update: [
        str('state', 'Move the binary: hashable (upload finished), hashing (verify), uploadable (reset), destroyed (final).', { choices: ['uploadable', 'hashable', 'hashing', 'signed', 'destroyed'] }),
        str('hash', 'Re-declared hash (with --state uploadable).'),
        int('size', 'Re-declared size (with --state uploadable).'),
        description('binary'),
        customMetadata,
      ],
      listQuery: [str('artifact-version-prn', 'Only the binaries of this artifact version (its prn).')],
    }).map((action) =>
      action.name === 'create'
        ? {
            ...action,
            summary: 'Create a binary. With --content-path: hash, upload in parts (resuming), wait for signable, sign and optionally release.',
            extra: BINARY_UPLOAD_OPTIONS,
            handler: createBinary,
            examples: [
              `canopy binaries create --content-path ./rootfs.img --artifact-version-prn ${examplePrn('artifact_version')} --target aarch64-unknown-linux-gnu --signing-key-pair release-2025`,
              `canopy binaries create --content-path ./rootfs.img --artifact-version-prn ${examplePrn('artifact_version')} --target aarch64-unknown-linux-gnu --signing-key-pair release-2025 --cohort-prn ${examplePrn('cohort')}`,
            ],
          }
        : action,
    ).concat({
      name: 'deltas',
      summary: "The deltas to this binary from earlier binaries (docs: delta updates): base binary, state, and size beside the full binary's.",
      method: 'GET',
      path: '/binaries/{prn}/deltas',
      args: [prnArg('binary', 'binary')],
      examples: [`canopy binaries deltas ${examplePrn('binary')}`],
    }),
  },
  {
    command: 'binary-parts',
    description: 'Binary parts: the numbered pieces of a multipart binary upload.',
    actions: [
      {
        name: 'create',
        summary: 'Declare (or redeclare) one part; the answer carries the presigned_upload_url for its bytes.',
        method: 'PUT',
        path: '/binaries/{binary_prn}/parts/{index}',
        args: [
          { name: 'binary_prn', description: 'Resource name of the binary.', example: examplePrn('binary') },
          { name: 'index', description: 'Part number, 1 to 10,000.', example: '1' },
        ],
        body: [
          int('expected-binary-size', 'Size of the whole binary in bytes.', { required: true, example: '67108864' }),
          str('hash', 'Lowercase hex SHA-256 of this part.', { required: true, example: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' }),
          int('size', 'Size of this part in bytes (5 MiB..5 GiB except the last).', { required: true, example: '8388608' }),
        ],
      },
      {
        name: 'list',
        summary: 'List the parts of a binary with their states (uploadable, invalid_size, invalid_hash, valid).',
        method: 'GET',
        path: '/binaries/{binary_prn}/parts',
        args: [{ name: 'binary_prn', description: 'Resource name of the binary.', example: examplePrn('binary') }],
        listKey: 'binary_parts',
      },
    ],
  },
  {
    command: 'binary-signatures',
    description: 'Binary signatures: Ed25519 signatures of a binary hash by a registered signing key.',
    actions: [
      {
        name: 'create',
        summary: 'Attach a signature. Give --signature, or --signing-key-pair NAME to sign the binary hash with a local key.',
        method: 'POST',
        path: '/binary_signatures',
        body: [
          prnField('binary-prn', 'binary', 'binary', true),
          prnField('signing-key-prn', 'signing key (found from --signing-key-pair when omitted)', 'signing_key'),
          str('signature', '128 hex characters: Ed25519 over the lowercase hex hash.'),
        ],
        extra: BINARY_SIGNATURE_OPTIONS,
        handler: createBinarySignature,
        examples: [`canopy binary-signatures create --binary-prn ${examplePrn('binary')} --signing-key-pair release-2025`],
      },
      { name: 'delete', summary: 'Remove a signature; a signed binary left with none is signable again.', method: 'DELETE', path: '/binary_signatures/{prn}', args: [prnArg('binary signature', 'binary_signature')] },
    ],
  },
  {
    command: 'bundles',
    description: 'Bundles: an immutable set of artifact versions that releases distribute.',
    actions: crud({
      command: 'bundles', path: '/bundles', noun: 'bundle', plural: 'bundles', prnType: 'bundle',
      actions: ['create', 'get', 'list', 'update', 'delete'],
      // Bundles carry a name only (spec 2: name, artifact_versions); their contents never change.
      create: [name('bundle'), list('artifact-version-prns', 'Comma-separated artifact version prns.', { required: true, example: examplePrn('artifact_version') }), id],
      update: [name('bundle')],
    }),
  },
  {
    command: 'bundle-signatures',
    description: "Bundle signatures: Ed25519 signatures of a bundle's ordered binaries by a registered signing key.",
    actions: [
      {
        name: 'create',
        summary: "Attach a signature. Give --signature, or --signing-key-pair NAME to sign the bundle's binaries with a local key.",
        method: 'POST',
        path: '/bundle_signatures',
        body: [
          prnField('bundle-prn', 'bundle', 'bundle', true),
          prnField('signing-key-prn', 'signing key (found from --signing-key-pair when omitted)', 'signing_key'),
          str('signature', "128 hex characters: Ed25519 over the canonical message of the bundle's binaries."),
          str('target', 'Sign the binaries of this target only (default: every target).', { example: 'aarch64-unknown-linux-gnu' }),
        ],
        extra: BUNDLE_SIGNATURE_OPTIONS,
        handler: createBundleSignature,
        examples: [`canopy bundle-signatures create --bundle-prn ${examplePrn('bundle')} --signing-key-pair release-2025`],
      },
      { name: 'get', summary: 'Show one bundle signature.', method: 'GET', path: '/bundle_signatures/{prn}', args: [prnArg('bundle signature', 'bundle_signature')] },
      { name: 'list', summary: 'List bundle signatures (--search "bundle_prn:\'PRN\'" for one bundle).', method: 'GET', path: '/bundle_signatures', listKey: 'bundle_signatures', query: [] },
      { name: 'delete', summary: 'Remove a bundle signature; devices stop receiving it at their next check.', method: 'DELETE', path: '/bundle_signatures/{prn}', args: [prnArg('bundle signature', 'bundle_signature')] },
    ],
  },
  {
    command: 'bundle-overrides',
    description: 'Bundle overrides: send a bundle to chosen devices for a time window, ahead of any release.',
    actions: crud({
      command: 'bundle-overrides', path: '/bundle_overrides', noun: 'bundle override', plural: 'bundle_overrides', prnType: 'bundle_override',
      actions: ['create', 'get', 'list', 'update', 'delete'],
      create: [
        name('bundle override', true),
        description('bundle override'),
        prnField('bundle-prn', 'bundle', 'bundle', true),
        str('starts-at', 'Start, RFC 3339 UTC.', { required: true, example: '2025-07-01T00:00:00Z' }),
        str('ends-at', 'End (after starts-at), RFC 3339 UTC.', { required: true, example: '2025-07-08T00:00:00Z' }),
      ],
    }),
    groups: [
      {
        command: 'devices',
        description: 'Devices a bundle override applies to.',
        actions: [
          {
            name: 'add',
            summary: 'Add a device to a bundle override.',
            method: 'POST',
            path: '/bundle_overrides/{prn}/devices',
            args: [prnArg('bundle override', 'bundle_override')],
            body: [prnField('device-prn', 'device', 'device', true)],
          },
          { name: 'list', summary: 'List the devices of a bundle override.', method: 'GET', path: '/bundle_overrides/{prn}/devices', args: [prnArg('bundle override', 'bundle_override')], listKey: 'devices' },
          {
            name: 'remove',
            summary: 'Remove a device from a bundle override.',
            method: 'DELETE',
            path: '/bundle_overrides/{prn}/devices/{device_prn}',
            args: [prnArg('bundle override', 'bundle_override'), { name: 'device_prn', description: 'Resource name of the device.', example: examplePrn('device') }],
          },
        ],
      },
    ],
  },
  {
    command: 'ca-certificates',
    description: 'CA certificates: certificate authorities whose device certificates may connect (with optional just-in-time provisioning).',
    actions: [
      ...crud({
        command: 'ca-certificates', path: '/ca_certificates', noun: 'CA certificate', plural: 'ca_certificates', prnType: 'ca_certificate',
        actions: ['create', 'get', 'list', 'update', 'delete'],
        updateMethod: 'PUT',
        create: [
          fileBase64('certificate', 'PEM file of the CA certificate (sent base64).', { required: true, example: 'ca.pem' }),
          fileBase64('verification-certificate', 'PEM file of a certificate with CN = a verification code, signed by the CA (sent base64).', { required: true, example: 'verification.pem' }),
          description('CA certificate'),
          json('jitp', 'Just-in-time provisioning: JSON {description, tags, product_name, cohort_prn?, target?} (or @file).'),
        ],
        update: [description('CA certificate'), json('jitp', 'Just-in-time provisioning settings as JSON (or @file); null turns it off.')],
      }),
      {
        name: 'verification-code',
        summary: 'Get a one-time code (valid a week) to put in the CN of a verification certificate.',
        method: 'POST',
        path: '/ca_certificates/verification_codes',
        examples: ['canopy ca-certificates verification-code', 'canopy x509 create-verification-certificate --ca-certificate ca.pem --ca-key ca-key.pem --verification-code "$(canopy ca-certificates verification-code | jq -r .verification_code)"'],
      },
    ],
  },
  {
    command: 'claim-tokens',
    description: 'Claim tokens: secrets with which devices holding fresh keys enrol themselves (canopy-daemon enrol) into a product, cohort and tags.',
    actions: crud({
      command: 'claim-tokens', path: '/claim_tokens', noun: 'claim token', plural: 'claim_tokens', prnType: 'claim_token',
      actions: ['create', 'get', 'list', 'delete'],
      create: [
        name('claim token'),
        int('max-uses', 'How many devices may enrol with it, 1 to 1,000,000.', { required: true, example: '50' }),
        str('expires-at', 'When it stops working, RFC 3339 UTC, in the future.', { required: true, example: '2030-01-01T00:00:00Z' }),
        prnField('product-prn', 'product claimed devices join', 'product', true),
        prnField('cohort-prn', 'cohort (of that product) claimed devices join', 'cohort'),
        list('tags', 'Comma-separated tags claimed devices get.'),
      ],
    }).map((action) =>
      action.name === 'create'
        ? { ...action, summary: 'Issue a claim token. Its secret is in this answer only (`secret`): give it to the devices, it is stored hashed.' }
        : action.name === 'delete'
          ? { ...action, summary: 'Revoke a claim token: no device may enrol with it any more; devices it enrolled keep their certificates.' }
          : action,
    ),
  },
  {
    command: 'cohorts',
    description: 'Cohorts: groups of devices of one product that follow the same chain of releases.',
    actions: crud({
      command: 'cohorts', path: '/cohorts', noun: 'cohort', plural: 'cohorts', prnType: 'cohort',
      actions: ['create', 'get', 'list', 'update'],
      create: [name('cohort', true), description('cohort'), prnField('product-prn', 'product', 'product', true), json('maintenance-windows', 'Maintenance windows as JSON, e.g. \'[{"days": ["mon","tue"], "start": "22:00", "end": "04:00", "time_zone": "Europe/Berlin"}]\'; null for always.')],
      update: [name('cohort'), description('cohort'), json('maintenance-windows', 'Maintenance windows as JSON, e.g. \'[{"days": ["mon","tue"], "start": "22:00", "end": "04:00", "time_zone": "Europe/Berlin"}]\'; null for always.')],
    }),
  },
  {
    command: 'deployments',
    description: 'Deployments (legacy API): a fwup firmware offered to the devices of its product whose tags and version match its conditions.',
    actions: crud({
      command: 'deployments', path: '/deployments', noun: 'deployment', plural: 'deployments', prnType: 'deployment',
      actions: ['create', 'get', 'list', 'update', 'delete'],
      create: [
        name('deployment', true),
        prnField('product-prn', 'product', 'product', true),
        str('firmware-uuid', "The firmware's uuid (a firmware of the same product).", { required: true, example: '3c5d2a4e-8f1b-4c6d-9e7f-0a1b2c3d4e5f' }),
        json('conditions', 'JSON object: {"version": "~> 1.2", "tags": ["beta"]}, both optional.'),
        bool('is-active', 'Offer it to devices (same as --state on).'),
        str('state', 'on or off: the same setting as --is-active.', { choices: ['on', 'off'] }),
        bool('delta-updatable', 'Stored and shown; Canopy serves whole archives.'),
      ],
      update: [
        name('deployment'),
        str('firmware-uuid', "The firmware's uuid."),
        json('conditions', 'JSON object: {"version": "~> 1.2", "tags": ["beta"]}.'),
        bool('is-active', 'Offer it to devices.'),
        str('state', 'on or off.', { choices: ['on', 'off'] }),
        bool('delta-updatable', 'Stored and shown.'),
      ],
      listQuery: [str('product-prn', 'Only the deployments of this product (its prn).')],
    }),
  },
  {
    command: 'device-certificates',
    description: 'Device certificates: client certificates a device authenticates with.',
    actions: crud({
      command: 'device-certificates', path: '/device_certificates', noun: 'device certificate', plural: 'device_certificates', prnType: 'device_certificate',
      actions: ['create', 'get', 'list', 'delete'],
      create: [prnField('device-prn', 'device', 'device', true), fileBase64('certificate', 'PEM file of the certificate (sent base64).', { required: true, example: 'device.pem' })],
      listQuery: [str('device-prn', 'Only the certificates of this device (its prn).')],
    }),
  },
  {
    command: 'device-reclaims',
    description: "Device reclaims: a known device identifier claimed with a new key, waiting for an admin's approval.",
    actions: [
      ...crud({
        command: 'device-reclaims', path: '/device_reclaims', noun: 'device reclaim', plural: 'device_reclaims', prnType: 'device_reclaim',
        actions: ['get', 'list'],
      }),
      {
        name: 'approve',
        summary: "Approve a pending reclaim: a certificate is issued for the new key, and the device's next claim receives it.",
        method: 'POST',
        path: '/device_reclaims/{prn}/approve',
        args: [prnArg('device reclaim', 'device_reclaim')],
      },
      {
        name: 'reject',
        summary: 'Reject a pending reclaim: the device is never enrolled with that key.',
        method: 'POST',
        path: '/device_reclaims/{prn}/reject',
        args: [prnArg('device reclaim', 'device_reclaim')],
      },
    ],
  },
  {
    command: 'devices',
    description: 'Devices: the units in the field, by identifier, with their product, cohort and tags.',
    actions: [
      ...crud({
        command: 'devices', path: '/devices', noun: 'device', plural: 'devices', prnType: 'device',
        actions: ['create', 'get', 'list', 'update', 'delete'],
        create: [
          str('identifier', 'Identifier, unique in the organization (serial number, MAC ...).', { required: true, example: 'gw-0001' }),
          prnField('product-prn', 'product', 'product', true),
          prnField('cohort-prn', 'cohort', 'cohort'),
          description('device'),
          list('tags', 'Comma-separated tags.'),
          bool('quarantined', 'A quarantined device gets no updates.'),
          bool('archived', 'An archived device no longer counts as active.'),
          str('target', 'Target triplet of the device.'),
        ],
        update: [prnField('cohort-prn', 'cohort', 'cohort'), description('device'), list('tags', 'Comma-separated tags (empty string clears).'), bool('quarantined', 'A quarantined device gets no updates.'), bool('archived', 'Archive (true) or restore (false).'), str('target', 'Target triplet.')],
      }),
      {
        name: 'get-update',
        summary: 'Ask what update the device would get (POST /devices/{prn}/update); needs a current (non-legacy) key.',
        method: 'POST',
        path: '/devices/{prn}/update',
        args: [prnArg('device', 'device')],
        body: [
          prnField('release-prn', 'release the device runs', 'release'),
          str('release-version', 'Version the device runs.'),
          prnField('bundle-prn', 'bundle the device runs', 'bundle'),
          bool('write', 'Record the answer as the device\'s check (default false).'),
        ],
        examples: [`canopy devices get-update ${examplePrn('device')} --release-version 1.2.0`],
      },
      {
        name: 'penalty-box',
        summary: 'Releases whose failures are counted for the device, and whether it rests from them now.',
        method: 'GET',
        path: '/devices/{prn}/penalty_box',
        args: [prnArg('device', 'device')],
        examples: [`canopy devices penalty-box ${examplePrn('device')}`],
      },
    ],
  },
  {
    command: 'events',
    description: `Events: the organization's log (${EVENT_TYPES.join(', ')} events).`,
    actions: crud({
      command: 'events', path: '/events', noun: 'event', plural: 'events', prnType: 'event',
      actions: ['list'],
      listQuery: [
        str('inserted-at-lt', 'Only events before this date-time.'),
        str('inserted-at-gte', 'Only events at or after this date-time.'),
        str('actor-prn', 'Only events caused by this actor.'),
        str('resource-prn', 'Only events about this resource.'),
        str('type', 'Event type.', { choices: EVENT_TYPES }),
        str('subtype', `Event subtype: ${EVENT_SUBTYPES.join(', ')}.`, { example: 'release_changed' }),
      ],
    }),
  },
  {
    command: 'firmwares',
    description: 'Firmware (legacy API): fwup archives whose meta.conf is signed by one of the organization\'s signing keys.',
    actions: [
      {
        name: 'upload',
        summary: 'Upload a fwup archive (multipart, streamed from disk).',
        method: 'POST',
        path: '/firmwares',
        extra: FIRMWARE_UPLOAD_OPTIONS,
        handler: uploadFirmwareAction,
        examples: [
          'canopy firmwares upload --path ./gateway.fw --org-name default --product-name gateway --ttl 86400',
          `canopy firmwares upload --path ./gateway.fw --product-prn ${examplePrn('product')}`,
        ],
      },
      ...crud({
        command: 'firmwares', path: '/firmwares', noun: 'firmware', plural: 'firmwares', prnType: 'firmware',
        actions: ['get', 'list', 'delete'],
        listQuery: [str('product-prn', 'Only the firmware of this product (its prn).')],
      }).map((action) => (action.name === 'get' ? { ...action, summary: 'Show one firmware (by prn or uuid); --expand url adds a download URL valid 24 hours.', query: [str('expand', 'url: add a download URL valid 24 hours.', { choices: ['url'] })] } : action)),
    ],
  },
  {
    command: 'products',
    description: 'Products: one kind of hardware, grouping its cohorts and devices.',
    actions: crud({
      command: 'products', path: '/products', noun: 'product', plural: 'products', prnType: 'product',
      actions: ['create', 'get', 'list', 'update'],
      create: [name('product', true), bool('archived', 'Create it archived (default false).')],
      update: [name('product'), bool('archived', 'Archive (true) or restore (false); refused while it has unarchived devices.')],
    }),
  },
  {
    command: 'releases',
    description: 'Releases: a bundle offered to a cohort, chained in order, optionally scheduled or phased.',
    actions: releaseActions(crud({
      command: 'releases', path: '/releases', noun: 'release', plural: 'releases', prnType: 'release',
      actions: ['create', 'get', 'list', 'update', 'delete'],
      create: [
        prnField('bundle-prn', 'bundle', 'bundle', true),
        prnField('cohort-prn', 'cohort', 'cohort', true),
        name('release', true),
        bool('required', 'Devices must pass through a required release.', { required: true, example: 'false' }),
        str('schedule-date', 'Not offered before this RFC 3339 time.', { required: true, example: '2025-07-01T00:00:00Z' }),
        description('release'),
        bool('disabled', 'A disabled release is skipped.'),
        str('version', 'Version the release installs.'),
        str('version-requirement', 'Devices whose version satisfies this may take it, e.g. "~> 1.2".'),
        str('phase-mode', 'numeric (default) or tags.', { choices: ['numeric', 'tags'] }),
        list('phase-tags', 'With phase-mode tags: comma-separated tags a device needs one of.'),
        { ...num('phase-value', 'With phase-mode numeric: a fraction 0..1 of the cohort, or a device count 2..1,000,000,000.'), type: 'number-or-integer' },
        prnField('next-release-prn', 'release to insert this one before (default: append as latest)', 'release'),
        { ...num('halt-failure-ratio', 'Health gate: halt (disable) the release once (failed + rolled_back) / finished reports reaches this, 0 < x <= 1; null turns it off.'), type: 'number-or-integer' },
        int('halt-min-reports', 'Finished reports (installed, failed, rolled_back) needed before the gate may halt (default 5).'),
        json('penalty-box', 'Penalty box as JSON, e.g. \'{"failures": 3, "window_seconds": null, "rest_seconds": 86400}\'; null for the defaults (those).'),
        json('maintenance-windows', 'Maintenance windows as JSON, e.g. \'[{"days": ["mon","tue"], "start": "22:00", "end": "04:00", "time_zone": "Europe/Berlin"}]\'; null for the cohort\'s.'),
        duration('soak', 'Success after a soak: a device counts as succeeded once healthy this long after installing (3600, 30m, 6h, 2d); null: installed is success.', { key: 'soak_seconds' }),
        int('max-concurrent', 'Concurrency cap: at most this many devices updating the release at once (1..1,000,000); devices beyond it are told to retry later.'),
        int('slot-timeout-seconds', 'A capped device that never reports finishing frees its place after this many seconds (10..604800; default 3600).'),
      ],
    })),
  },
  {
    command: 'signing-keys',
    description: 'Signing keys: Ed25519 public keys that binary signatures are checked against.',
    actions: crud({
      command: 'signing-keys', path: '/signing_keys', noun: 'signing key', plural: 'signing_keys', prnType: 'signing_key',
      actions: ['create', 'get', 'list', 'update', 'delete'],
      create: [name('signing key'), str('value', 'Public key: base64 of the raw 32 bytes, or a PEM SPKI (see --value-path, --generate).')],
      update: [name('signing key')],
    }).map((action) =>
      action.name === 'create'
        ? {
            ...action,
            summary: 'Register a public key: from --value, --value-path, or --generate NAME (a new local key pair; the private key stays under the config dir, mode 0600).',
            extra: SIGNING_KEY_OPTIONS,
            handler: createSigningKey,
            examples: ['canopy signing-keys create --generate release-2025', 'canopy signing-keys create --name ci --value-path ./ci-public.pem'],
          }
        : action,
    ).concat({
      name: 'public-key',
      summary: 'Print the public key as PEM (SPKI): the file a device trusts (canopy-daemon trusted_signing_keys).',
      method: 'GET',
      path: '/signing_keys/{prn}',
      args: [prnArg('signing key', 'signing_key')],
      handler: printSigningKeyPem,
      examples: [`canopy signing-keys public-key ${examplePrn('signing_key')} > release.pub.pem`],
    }),
  },
  {
    command: 'tunnels',
    description: 'Tunnels: remote-access tunnels to a port on a device.',
    actions: crud({
      command: 'tunnels', path: '/tunnels', noun: 'tunnel', plural: 'tunnels', prnType: 'tunnel',
      actions: ['create', 'get', 'list', 'update'],
      create: [
        prnField('device-prn', 'device', 'device', true),
        int('device-tunnel-port', 'Port on the device to reach.', { required: true, example: '22' }),
        list('cidr-block-allowlist', 'Comma-separated CIDR blocks allowed to use the tunnel.'),
        int('ttl', 'Lifetime in seconds, 1 to 3600 (default 3600).'),
      ],
      update: [str('state', 'Only closed is accepted.', { choices: ['closed'] }), int('ttl', 'Extend: seconds from now, 1 to 3600.')],
    }),
  },
  {
    command: 'users',
    description: 'Users: who is calling, log-in, sessions and sign-out.',
    actions: [
      { name: 'me', summary: 'Show the user (or the organization and role) behind the API key.', method: 'GET', path: '/users/me' },
      {
        name: 'auth',
        summary: 'Log in with email or username and password; answers a session token usable as an API key.',
        method: 'POST',
        path: '/users/auth',
        public: true,
        body: [str('email', 'Email of the user.'), str('username', 'Username.'), str('password', 'Password.', { required: true, example: "'correct horse battery staple'" })],
        examples: ["canopy users auth --username ops --password 'correct horse battery staple'"],
      },
      { name: 'sessions', summary: "List the live sessions of the key's user (never their tokens).", method: 'GET', path: '/users/me/sessions', listKey: 'sessions' },
      { name: 'sign-out', summary: 'End the session token given as the API key (a plain API key answers 409 not_a_session).', method: 'DELETE', path: '/users/me/session' },
    ],
  },
  {
    command: 'webhooks',
    description: 'Webhooks: HTTPS endpoints that receive signed event deliveries.',
    actions: [
      ...crud({
        command: 'webhooks', path: '/webhooks', noun: 'webhook', plural: 'webhooks', prnType: 'webhook',
        actions: ['create', 'get', 'list', 'update', 'delete'],
        create: [
          str('url', 'https:// URL, at most 1028 characters.', { required: true, example: 'https://hooks.example.com/canopy' }),
          description('webhook'),
          list('enabled-events', `Comma-separated: ${SUBSCRIBABLE_EVENTS.join(', ')}.`, { example: 'device.release_changed' }),
          str('state', 'enabled or disabled; enabling sends a test fire that must answer 200.', { choices: ['enabled', 'disabled'] }),
        ],
      }),
      {
        name: 'roll-secret',
        summary: 'Make a new secret; the old one keeps signing (second signature) for --webhook-ttl seconds.',
        method: 'POST',
        path: '/webhooks/{prn}/roll_secret',
        args: [prnArg('webhook', 'webhook')],
        body: [int('webhook-ttl', 'Seconds the old secret stays valid (default 0).')],
      },
      { name: 'test-fire', summary: 'Send a webhook.test_fire event to the webhook now.', method: 'POST', path: '/webhooks/{prn}/test_fire', args: [prnArg('webhook', 'webhook')] },
    ],
  },
  X509_RESOURCE,
];
