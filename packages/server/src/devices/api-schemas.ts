/** The Device wire shape, shared by the admin API's device routes and the device API's `GET /device/me`. */
import { Type } from 'typebox';
import { Description, Nullable, Prn, ResourceFields, Timestamp } from '../http/schemas';
import { ProductPrn } from '../cohorts/api-schemas';

export { ProductPrn };

const ORG = '9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70';

export const CohortPrn = (description: string) => Nullable(Prn(description, `prn:1:${ORG}:cohort:1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d`));

export const Identifier = Type.String({ minLength: 1, maxLength: 128, description: 'The device\'s own identifier (often a serial number), 1 to 128 characters, unique within the organization.', examples: ['gw-00042'] });
export const DeviceDescription = Nullable(Description('What or where the device is, 1 to 256 characters, or null.'));
export const Tags = Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { description: 'Labels for phased rollouts and search (each 1 to 128 characters), or null.', examples: [['east', 'beta']] }));
export const Target = Nullable(Type.String({ minLength: 1, maxLength: 128, description: 'Target triplet the device runs, 1 to 128 characters, or null.', examples: ['aarch64-unknown-linux-gnu'] }));
export const Quarantined = Type.Boolean({ description: 'A quarantined device is told device_quarantine by update checks.' });
export const Archived = Type.Boolean({ description: 'Archived devices keep their history but may not authenticate; a product cannot be archived while it has unarchived devices.' });

export const Device = Type.Object({
  ...ResourceFields,
  identifier: Identifier,
  product_prn: ProductPrn('The product of the device.'),
  cohort_prn: CohortPrn('The cohort of the device (one of its product\'s), or null.'),
  description: DeviceDescription,
  quarantined: Quarantined,
  archived: Archived,
  tags: Tags,
  target: Target,
  last_connected_at: Nullable(Timestamp('When the device last connected; null if never.')),
  reported_bundle_prn: Nullable(Type.String({ description: 'The bundle the device last reported running.' })),
  reported_release_prn: Nullable(Type.String({ description: 'The release the device last reported running.' })),
  reported_release_version: Nullable(Type.String({ description: 'The release version the device last reported.', examples: ['1.4.2'] })),
});

