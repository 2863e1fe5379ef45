import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, NoContent, PrnParams, ResourceFields, single, STANDARD_ERRORS } from '../http/schemas';
import { CallerId } from '../http/caller-id';
import { OptionalCustomMetadata, OptionalDescription } from './route-fields';
import { artifactToWire, createArtifact, deleteArtifact, getArtifact, listArtifacts, updateArtifact } from './service';

const ArtifactName = () => Type.String({ minLength: 1, maxLength: 128, description: 'Name of the artifact, 1 to 128 characters.', examples: ['rootfs'] });

const Artifact = Type.Object({
  ...ResourceFields,
  name: ArtifactName(),
  description: OptionalDescription,
  custom_metadata: OptionalCustomMetadata,
});

const ArtifactParams = PrnParams('Resource name of the artifact.');
const TAGS = ['artifacts'];

export const artifactRoutes: ContextRoutes = (app, { db }) => {
  app.post('/artifacts', {
    config: { role: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Create an artifact',
      description: 'An artifact is something devices install (a root filesystem, a bootloader, an application); its versions carry the binaries.',
      body: Type.Object({
        id: CallerId,
        name: ArtifactName(),
        description: Type.Optional(OptionalDescription),
        custom_metadata: Type.Optional(OptionalCustomMetadata),
      }),
      response: { 201: single('artifact', Artifact), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ artifact: artifactToWire(await createArtifact(db, actorOf(request), request.body)) }),
  });

  app.get('/artifacts', {
    config: { role: 'read' },
    schema: {
      tags: TAGS,
      summary: 'List artifacts',
      description: 'Search fields: name and description (`:` `-` `~`), inserted_at and updated_at (`:` `<` `<=` `>` `>=`).',
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('artifacts', Artifact), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listArtifacts(db, actorOf(request), request.query);
      return { artifacts: page.items.map(artifactToWire), next_page: page.nextPage };
    },
  });

  app.get('/artifacts/:prn', {
    config: { role: 'read' },
    schema: { tags: TAGS, summary: 'Get an artifact', description: 'One artifact by its prn.', params: ArtifactParams, response: { 200: single('artifact', Artifact), ...STANDARD_ERRORS } },
    handler: async (request) => ({ artifact: artifactToWire(await getArtifact(db, actorOf(request), request.params.prn)) }),
  });

  app.patch('/artifacts/:prn', {
    config: { role: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Update an artifact',
      description: 'Change the name, description or custom metadata; null clears an optional field.',
      params: ArtifactParams,
      body: Type.Object({
        name: Type.Optional(ArtifactName()),
        description: Type.Optional(OptionalDescription),
        custom_metadata: Type.Optional(OptionalCustomMetadata),
      }),
      response: { 200: single('artifact', Artifact), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ artifact: artifactToWire(await updateArtifact(db, actorOf(request), request.params.prn, request.body)) }),
  });

  app.delete('/artifacts/:prn', {
    config: { role: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Delete an artifact',
      description: 'Only an artifact without versions can go: 409 `artifact_has_versions` otherwise.',
      params: ArtifactParams,
      response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      await deleteArtifact(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });
};
