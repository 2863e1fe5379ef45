import { Type } from 'typebox';
import { CallerId } from '../http/caller-id';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { CustomMetadata, Description, list, NoContent, Nullable, Prn, PrnParams, single, STANDARD_ERRORS } from '../http/schemas';
import { binaryDownloadUrl } from './download';
import { Binary, BinarySize, BinaryStateSchema, Sha256Hex, Target } from './route-schemas';
import { binariesToWire, binaryToWireWithSignatures, createBinary, deleteBinary, getBinary, listBinaries } from './service';
import { updateBinary } from './transitions';

const BinaryParams = PrnParams('Resource name of the binary.');

export const binaryRoutes: ContextRoutes = (app, platform) => {
  const { db } = platform;

  app.post('/binaries', {
    config: { role: 'write' },
    schema: {
      tags: ['binaries'],
      summary: 'Create a binary',
      description: 'Declares the bytes of an artifact version for one target (one live binary per version and target). It starts uploadable.',
      body: Type.Object({
        id: CallerId,
        artifact_version_prn: Prn('The artifact version.'),
        hash: Sha256Hex('Lowercase hex SHA-256 of the whole binary.'),
        size: BinarySize('Size in bytes, 0 to 53,687,091,200,000.'),
        target: Target,
        description: Type.Optional(Nullable(Description())),
        custom_metadata: Type.Optional(Nullable(CustomMetadata)),
      }),
      response: { 201: single('binary', Binary), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      const row = await createBinary(db, actorOf(request), request.body);
      return reply.code(201).send({ binary: await binaryToWireWithSignatures(db, row) });
    },
  });

  app.get('/binaries', {
    config: { role: 'read' },
    schema: {
      tags: ['binaries'],
      summary: 'List binaries',
      description: 'Search fields: target, description (`:` `-` `~`), hash, state, artifact_version_prn (`:`), size, inserted_at, updated_at (`:` `<` `<=` `>` `>=`).',
      querystring: Type.Object({ ...LIST_QUERY_PROPERTIES, artifact_version_prn: Type.Optional(Prn('Only the binaries of this artifact version.')) }),
      response: { 200: list('binaries', Binary), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listBinaries(db, actorOf(request), request.query);
      return { binaries: await binariesToWire(db, page.items), next_page: page.nextPage };
    },
  });

  app.get('/binaries/:prn', {
    config: { role: 'read' },
    schema: { tags: ['binaries'], summary: 'Get a binary', description: 'One binary, with its state and signatures.', params: BinaryParams, response: { 200: single('binary', Binary), ...STANDARD_ERRORS } },
    handler: async (request) => ({ binary: await binaryToWireWithSignatures(db, await getBinary(db, actorOf(request), request.params.prn)) }),
  });

  app.patch('/binaries/:prn', {
    config: { role: 'write' },
    schema: {
      tags: ['binaries'],
      summary: 'Update a binary or move its state',
      description:
        'Edit description and custom_metadata, or move `state`: uploadable -> hashable (every part valid, sizes add up), hashable -> hashing (the server verifies), ' +
        'hashable/hashing/signable -> uploadable (reset: parts dropped, revision + 1; hash and size may be re-declared), any -> destroyed (final). ' +
        'Any other move answers 409 `invalid_state_transition` naming the current and requested state.',
      params: BinaryParams,
      body: Type.Object({
        state: Type.Optional(BinaryStateSchema),
        hash: Type.Optional(Sha256Hex('Re-declared hash (only while or by becoming uploadable).')),
        size: Type.Optional(BinarySize('Re-declared size (only while or by becoming uploadable).')),
        description: Type.Optional(Nullable(Description())),
        custom_metadata: Type.Optional(Nullable(CustomMetadata)),
        target: Type.Optional(Type.String({ description: 'Immutable; accepted unchanged.' })),
        artifact_version_prn: Type.Optional(Type.String({ description: 'Immutable; accepted unchanged.' })),
      }),
      response: { 200: single('binary', Binary), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ binary: await binaryToWireWithSignatures(db, await updateBinary(db, platform, actorOf(request), request.params.prn, request.body)) }),
  });

  app.delete('/binaries/:prn', {
    config: { role: 'write' },
    schema: { tags: ['binaries'], summary: 'Delete a binary', description: 'Removes the record, its parts and signatures; its bytes are purged in the background.', params: BinaryParams, response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      await deleteBinary(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });

  app.get('/binaries/:prn/download_url', {
    config: { role: 'read' },
    schema: {
      tags: ['binaries'],
      summary: 'Get a download URL',
      description: 'A URL valid 24 hours for the bytes of a signable or signed binary (409 `binary_not_downloadable` otherwise). It honours HTTP Range.',
      params: BinaryParams,
      response: { 200: Type.Object({ download_url: Type.String() }, { description: 'The URL.' }), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ download_url: await binaryDownloadUrl(platform, await getBinary(db, actorOf(request), request.params.prn)) }),
  });
};
