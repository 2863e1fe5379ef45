/**
 * GET /blobs/<key>?expires&signature: the server's own download URLs (filesystem store), with
 * no API key: the signature is the credential. A changed character or a passed expiry is a 403.
 * Honours a single HTTP Range so devices can resume.
 */
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { ApiError } from '../http/errors';
import { BlobNotFound } from './blob-store';
import { parseRange } from './http-range';

export const blobDownloadPath = (key: string) => `/blobs/${key}`;

export const forbiddenUrl = () => new ApiError(403, [{ code: 'forbidden', context: { reason: 'invalid_or_expired_url' } }]);

export const blobDownloadRoutes: ContextRoutes = (app, { blobs, urls }) => {
  app.get('/blobs/*', {
    config: { public: true },
    schema: { hide: true, querystring: Type.Object({ expires: Type.Optional(Type.String()), signature: Type.Optional(Type.String()) }) },
    handler: async (request, reply) => {
      const key = (request.params as { '*': string })['*'];
      if (!urls.verify('download', blobDownloadPath(key), request.query.expires, request.query.signature)) throw forbiddenUrl();
      const size = await blobs.size(key).catch(() => null);
      if (size === null) throw new ApiError(404, [{ code: 'not_found', context: { resource: 'blob' } }]);
      reply.header('accept-ranges', 'bytes').header('content-type', 'application/octet-stream');
      const answer = parseRange(request.headers.range, size);
      if (answer.kind === 'unsatisfiable') return reply.code(416).header('content-range', `bytes */${size}`).send();
      try {
        if (answer.kind === 'whole') return reply.header('content-length', size).send(await blobs.get(key));
        const { start, end } = answer.range;
        return reply
          .code(206)
          .header('content-range', `bytes ${start}-${end}/${size}`)
          .header('content-length', end - start + 1)
          .send(await blobs.get(key, answer.range));
      } catch (error) {
        if (error instanceof BlobNotFound) throw new ApiError(404, [{ code: 'not_found', context: { resource: 'blob' } }]);
        throw error;
      }
    },
  });
};
