/**
 * The wire schemas of bundles: the bundle as the admin API answers it, and its summary without
 * the artifact versions, as the device API's `GET /update?expand=bundle` answers it.
 */
import { Type } from 'typebox';
import { Name, Nullable, Prn, ResourceFields } from '../http/schemas';

const summaryFields = {
  ...ResourceFields,
  name: Nullable(Name('Bundle name, null or 1 to 128 characters.')),
};

export const BundleSummary = Type.Object(summaryFields, { description: 'The bundle, without its artifact versions.' });

export const Bundle = Type.Object({
  ...summaryFields,
  artifact_versions: Type.Array(Type.Object({ prn: Prn('An artifact version.'), index: Type.Integer({ description: 'Position, from 0.' }) }), { description: 'The artifact versions in order.' }),
  artifact_version_prns: Type.Array(Prn('An artifact version.'), { description: 'The same, as plain prns.' }),
});
