import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { ApiError } from '../http/errors';
import { list, PrnParams, single, STANDARD_ERRORS } from '../http/schemas';
import { forbiddenUrl } from '../storage/download-routes';
import { PART_INDEX_MAX } from './part-rules';
import { receivePart } from './part-upload';
import { listParts, partUploadPath, putPart, uploadUrlFor } from './parts';
import { BinaryPart, PartBody } from './route-schemas';
import { partToWire } from './wire';

export const partRoutes: ContextRoutes = async (app, platform) => {
  const { db } = platform;

  app.put('/binaries/:prn/parts/:index', {
    config: { role: 'write' },
    schema: {
      tags: ['binaries'],
      summary: 'Declare a part and get its upload URL',
      description:
        'Declares part `index` (1..10,000) of an uploadable binary; the same index replaces the earlier part. The answer carries `presigned_upload_url`, ' +
        'where the client PUTs exactly `size` raw bytes (optionally with `x-amz-checksum-sha256`, base64 of the raw part SHA-256).',
      params: Type.Object({ ...PrnParams('Resource name of the binary.').properties, index: Type.Integer({ minimum: 1, maximum: PART_INDEX_MAX, description: 'Part number, 1 to 10,000.' }) }),
      body: PartBody,
      response: { 201: single('binary_part', BinaryPart), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      const part = await putPart(db, platform, actorOf(request), request.params.prn, request.params.index, request.body);
      return reply.code(201).send({ binary_part: { ...partToWire(part), presigned_upload_url: await uploadUrlFor(platform, part) } });
    },
  });

  app.get('/binaries/:prn/parts', {
    config: { role: 'read' },
    schema: {
      tags: ['binaries'],
      summary: 'List the parts of a binary',
      description: 'Every declared part in index order, with its state.',
      params: PrnParams('Resource name of the binary.'),
      response: { 200: list('binary_parts', BinaryPart), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ binary_parts: (await listParts(db, platform, actorOf(request), request.params.prn)).map(partToWire), next_page: null }),
  });

  // The server's own upload URL (filesystem store). Its own scope, so the raw body parser
  // below (a pass-through: no buffering, no bodyLimit) applies to this route only.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.put('/part_uploads/:id', {
      config: { public: true },
      schema: { hide: true, params: Type.Object({ id: Type.String({ format: 'uuid' }) }), querystring: Type.Object({ expires: Type.Optional(Type.String()), signature: Type.Optional(Type.String()) }) },
      handler: async (request, reply) => {
        const { id } = request.params as { id: string };
        const { expires, signature } = request.query as { expires?: string; signature?: string };
        if (!platform.urls.verify('upload', partUploadPath(id), expires, signature)) throw forbiddenUrl();
        const outcome = await receivePart(platform, id, request.raw);
        // A refusal before the body was read (or part-way through it): close once answered.
        if (outcome.kind !== 'stored') reply.header('connection', 'close');
        switch (outcome.kind) {
          case 'gone':
            throw new ApiError(404, [{ code: 'not_found', context: { resource: 'binary_part', reason: 'replaced_or_dropped' } }]);
          case 'not_uploadable':
            throw new ApiError(409, [{ code: 'binary_not_uploadable', context: { current_state: outcome.state, required_state: 'uploadable' } }]);
          case 'too_long':
            throw new ApiError(413, [{ code: 'body_too_large', context: { reason: 'longer_than_declared', max_bytes: outcome.part.size } }]);
          case 'stored':
            if (outcome.verdict !== 'valid') {
              const reason = outcome.verdict === 'invalid_size' ? 'size_mismatch' : 'hash_mismatch';
              throw new ApiError(422, [{ code: 'validation', context: { field: 'body', reason, part_state: outcome.part.state, received_bytes: outcome.received } }]);
            }
            return reply.header('etag', `"${outcome.part.hash}"`).send({ binary_part: partToWire(outcome.part) });
        }
      },
    });
  });
};
