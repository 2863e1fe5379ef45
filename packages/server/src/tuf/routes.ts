/** The admin API of an organization's TUF repository (`/tuf/...`). */
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { notFound } from '../http/errors';
import { Nullable, Prn, STANDARD_ERRORS, Timestamp } from '../http/schemas';
import { trustPosture } from './posture';
import { addProposalSignatures, commitProposal, commitRoot, createOnlineKeys, getProposal, listOnlineKeys, proposeRoot, servedMetadata, uploadTargets } from './service';

const TAGS = ['tuf'];
const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'TUF metadata: `{"signed": {...}, "signatures": [...]}`.' });
const data = (schema: ReturnType<typeof Type.Object>, description: string) => Type.Object({ data: schema }, { description });
const RootAnswer = Type.Object({ version: Type.Integer(), expires: Type.String(), metadata: Metadata });
const Proposal = Type.Object({
  version: Type.Integer(),
  signed: Type.Record(Type.String(), Type.Unknown()),
  signatures: Type.Array(Type.Object({ keyid: Type.String(), sig: Type.String() })),
  thresholds_met: Type.Object({ previous_root: Type.Boolean(), new_root: Type.Boolean() }),
});
const OnlineKey = Type.Object({ keyid: Type.String(), key: Type.Record(Type.String(), Type.Unknown()) });
const TrustPosture = Type.Object({
  current_root_version: Nullable(Type.Integer({ description: 'The root the organization trusts now; null before its first.' })),
  root_versions: Type.Array(Type.Object({ version: Type.Integer(), devices: Type.Integer({ description: 'Devices whose last refresh trusted this root.' }) })),
  stale_devices: Type.Integer({ description: 'Devices trusting an older root than the current one.' }),
  stale: Type.Array(
    Type.Object({ device_prn: Prn('The device.'), root_version: Type.Integer(), reported_at: Timestamp('When it last fetched metadata.') }),
    { description: 'Up to 100 stale devices, longest silent first.' },
  ),
});
const VersionParams = Type.Object({ version: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The proposed root version.' }) });

export const tufRoutes: ContextRoutes = (app, platform) => {
  const { db } = platform;

  app.post('/tuf/online_keys', {
    config: { role: 'admin' },
    schema: {
      tags: TAGS,
      summary: 'Create online keys',
      description: 'Generates a snapshot key and a timestamp key, kept sealed by the server. Put their public halves into the next root; the server signs with them once a trusted root names them (rotation: propose a root that names the new ones only).',
      response: { 201: data(Type.Object({ snapshot: OnlineKey, timestamp: OnlineKey }), 'The new keys.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ data: await createOnlineKeys(platform, actorOf(request)) }),
  });

  app.get('/tuf/online_keys', {
    config: { role: 'read' },
    schema: { tags: TAGS, summary: 'List online keys', description: 'Every online key, newest first, and whether the trusted root names it.', response: { 200: Type.Object({ data: Type.Array(Type.Unknown()) }, { description: 'The online keys: `role`, `keyid`, `key`, `in_trusted_root`, `inserted_at`.' }), ...STANDARD_ERRORS } },
    handler: async (request) => ({ data: await listOnlineKeys(db, actorOf(request)) }),
  });

  app.put('/tuf/root', {
    config: { role: 'admin' },
    schema: {
      tags: TAGS,
      summary: 'Commit a root',
      description:
        'A root signed offline becomes trusted: version 1, or the next version signed by the threshold of the trusted root and its own. 422 `root` `wrong_version`, `signatures` `threshold_not_met`, `root` `online_keys_not_held` (the root names snapshot or timestamp keys this server does not hold).',
      body: Type.Object({ root: Metadata }),
      response: { 200: data(RootAnswer, 'The trusted root.'), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ data: await commitRoot(platform, actorOf(request), request.body.root) }),
  });

  app.post('/tuf/root_proposals', {
    config: { role: 'admin' },
    schema: {
      tags: TAGS,
      summary: 'Propose a root',
      description: 'The next root version, with any signatures so far; replaces an earlier proposal of the same version.',
      body: Type.Object({ root: Metadata }),
      response: { 201: data(Proposal, 'The proposal and which thresholds its signatures meet.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ data: await proposeRoot(platform, actorOf(request), request.body.root) }),
  });

  app.get('/tuf/root_proposals/:version', {
    config: { role: 'read' },
    schema: { tags: TAGS, summary: 'Get a root proposal', description: 'The proposal to sign offline (`signed`) and its signatures.', params: VersionParams, response: { 200: data(Proposal, 'The proposal.'), ...STANDARD_ERRORS } },
    handler: async (request) => ({ data: await getProposal(db, actorOf(request), request.params.version) }),
  });

  app.put('/tuf/root_proposals/:version/signatures', {
    config: { role: 'admin' },
    schema: {
      tags: TAGS,
      summary: 'Add signatures to a root proposal',
      description: 'Each signature must verify with a root key of the trusted or the proposed root: 422 `signatures[i]` `invalid_signature` otherwise.',
      params: VersionParams,
      body: Type.Object({ signatures: Type.Array(Type.Object({ keyid: Type.String({ minLength: 1, maxLength: 128 }), sig: Type.String({ minLength: 1, maxLength: 1024 }) }), { minItems: 1, maxItems: 64 }) }),
      response: { 200: data(Proposal, 'The proposal.'), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ data: await addProposalSignatures(platform, actorOf(request), request.params.version, request.body.signatures) }),
  });

  app.post('/tuf/root_proposals/:version/commit', {
    config: { role: 'admin' },
    schema: {
      tags: TAGS,
      summary: 'Commit a root proposal',
      description: 'Trusted once both thresholds are met: 422 `signatures` `threshold_not_met` (with `of`: `previous_root` or `new_root`) otherwise.',
      params: VersionParams,
      response: { 200: data(RootAnswer, 'The trusted root.'), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ data: await commitProposal(platform, actorOf(request), request.params.version) }),
  });

  app.put('/tuf/metadata/:role', {
    config: { role: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Upload targets metadata',
      description:
        'Targets (`targets`, signed by the root\'s targets keys) or a delegated role\'s (signed by the keys `targets` delegates it to). Revoking a delegated key is uploading targets that no longer delegate to it. 422 `signatures` `threshold_not_met`, `metadata` `version_not_increased`, `role` `not_delegated`.',
      params: Type.Object({ role: Type.String({ minLength: 1, maxLength: 128, pattern: '^[^/]+$', description: '`targets`, or a delegated role (a product\'s name).' }) }),
      body: Type.Object({ metadata: Metadata }),
      response: { 200: data(Type.Object({ role: Type.String(), version: Type.Integer(), metadata: Metadata }), 'The published metadata.'), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ data: await uploadTargets(platform, actorOf(request), request.params.role, request.body.metadata) }),
  });

  app.get('/tuf/metadata/:file', {
    config: { role: 'read' },
    schema: {
      tags: TAGS,
      summary: 'Get metadata',
      description: 'What devices are served: `{n}.root.json`, `timestamp.json`, `snapshot.json`, `targets.json`, `{role}.json`.',
      params: Type.Object({ file: Type.String({ minLength: 1, maxLength: 140, description: 'The metadata file, e.g. `2.root.json`.' }) }),
      response: { 200: Metadata, ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const body = await servedMetadata(db, actorOf(request).organizationId, request.params.file);
      if (!body) throw notFound('tuf_metadata');
      return body;
    },
  });

  app.get('/tuf/posture', {
    config: { role: 'read' },
    schema: {
      tags: TAGS,
      summary: 'Trust posture',
      description: 'How many devices trust each root version, and the devices behind the current root (up to 100, longest silent first).',
      response: { 200: data(TrustPosture, 'The trust posture.'), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ data: await trustPosture(db, actorOf(request).organizationId) }),
  });
};
