/** Request and response fields the artifact and artifact-version routes share. */
import { CustomMetadata, Description, Nullable } from '../http/schemas';

export const OptionalDescription = Nullable(Description('Description, 1 to 256 characters, or null.'));

export const OptionalCustomMetadata = Nullable(CustomMetadata, {
  description: 'Free-form JSON object, at most 1,000,000 bytes serialised (422 `too_large`), or null.',
});
