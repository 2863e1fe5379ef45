/** The device API's own answer: `GET /device/me`, the Device of the admin API with its expansions. */
import { Type } from 'typebox';
import { ManifestEntry } from '../binaries/manifest-schemas';
import { Cohort } from '../cohorts/api-schemas';
import { Device } from '../devices/api-schemas';
import { Nullable } from '../http/schemas';

export const DeviceMe = Type.Object(
  {
    data: Type.Object(
      {
        ...Device.properties,
        cohort: Type.Optional(Nullable(Cohort, { description: 'With `expand=cohort`: the device\'s cohort, or null.' })),
        manifest: Type.Optional(Nullable(Type.Array(ManifestEntry), { description: 'With `expand=manifest`: entries of the bundle the device reports running; null when unknown.' })),
      },
      { additionalProperties: false },
    ),
  },
  { description: 'The calling device.' },
);

