import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, NoContent, Prn, PrnParams, ResourceFields, single, STANDARD_ERRORS } from '../http/schemas';
import { CallerId } from '../http/caller-id';
import { OptionalCustomMetadata, OptionalDescription } from './route-fields';
import {
  artifactVersionToWire,
  createArtifactVersion,
  deleteArtifactVersion,
  getArtifactVersion,
  listArtifactVersions,
  updateArtifactVersion,
} from './version-service';

const ArtifactPrn = (description: string) => Prn(description, 'prn:1:9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70:artifact:7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b');
const Version = Type.String({ minLength: 1, maxLength: 128, description: 'The version, 1 to 128 characters, unique within the artifact.', examples: ['1.4.2'] });

const ArtifactVersion = Type.Object({
  ...ResourceFields,
  artifact_prn: ArtifactPrn('The artifact this is a version of.'),
  version: Version,
  description: OptionalDescription,
  custom_metadata: OptionalCustomMetadata,
});

const ArtifactVersionParams = PrnParams('Resource name of the artifact version.');
const TAGS = ['artifact_versions'];

export const artifactVersionRoutes: ContextRoutes = (app, { db }) => {
  app.post('/artifact_versions', {
    config: { role: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Create an artifact version',
      description: '422 `artifact_prn` `not_found` unless the artifact is in the organization; 422 `version` `taken` when the artifact already has that version.',
      body: Type.Object({
        id: CallerId,
        artifact_prn: ArtifactPrn('The artifact, in the same organization.'),
        version: Version,
        description: Type.Optional(OptionalDescription),
        custom_metadata: Type.Optional(OptionalCustomMetadata),
      }),
      response: { 201: single('artifact_version', ArtifactVersion), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ artifact_version: artifactVersionToWire(await createArtifactVersion(db, actorOf(request), request.body)) }),
  });

  app.get('/artifact_versions', {
    config: { role: 'read' },
    schema: {
      tags: TAGS,
      summary: 'List artifact versions',
      description: 'Optionally only those of one artifact (`artifact_prn`). Search fields: version and description (`:` `-` `~`), artifact_prn (`:`), inserted_at and updated_at (`:` `<` `<=` `>` `>=`).',
      querystring: Type.Object({
        ...LIST_QUERY_PROPERTIES,
        artifact_prn: Type.Optional(ArtifactPrn('Only the versions of this artifact.')),
      }),
      response: { 200: list('artifact_versions', ArtifactVersion), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listArtifactVersions(db, actorOf(request), request.query);
      return { artifact_versions: page.items.map(artifactVersionToWire), next_page: page.nextPage };
    },
  });

  app.get('/artifact_versions/:prn', {
    config: { role: 'read' },
    schema: {
      tags: TAGS,
      summary: 'Get an artifact version',
      description: 'One artifact version by its prn.',
      params: ArtifactVersionParams,
      response: { 200: single('artifact_version', ArtifactVersion), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ artifact_version: artifactVersionToWire(await getArtifactVersion(db, actorOf(request), request.params.prn)) }),
  });

  app.patch('/artifact_versions/:prn', {
    config: { role: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Update an artifact version',
      description: 'Change the version, description or custom metadata; null clears an optional field. A version stays with its artifact: a different `artifact_prn` is 422 `immutable`.',
      params: ArtifactVersionParams,
      body: Type.Object({
        artifact_prn: Type.Optional(ArtifactPrn('The current artifact; any other is refused.')),
        version: Type.Optional(Version),
        description: Type.Optional(OptionalDescription),
        custom_metadata: Type.Optional(OptionalCustomMetadata),
      }),
      response: { 200: single('artifact_version', ArtifactVersion), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ artifact_version: artifactVersionToWire(await updateArtifactVersion(db, actorOf(request), request.params.prn, request.body)) }),
  });

  app.delete('/artifact_versions/:prn', {
    config: { role: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Delete an artifact version',
      description: 'Removes the version; 409 while it still has binaries.',
      params: ArtifactVersionParams,
      response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      await deleteArtifactVersion(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });
};
