/** The wire schemas of bundle overrides: the override and its device membership as answered. */
import { Type } from 'typebox';
import { Description, Name, Nullable, Prn, ResourceFields, Timestamp } from '../http/schemas';

export const BundleOverride = Type.Object({
  ...ResourceFields,
  bundle_prn: Prn('The bundle the devices get while the override is active.'),
  name: Name('Override name.'),
  description: Nullable(Description()),
  starts_at: Timestamp('Active from this moment (inclusive).'),
  ends_at: Nullable(Timestamp('Active until this moment (exclusive); after starts_at. Null: no end.')),
});

export const OverrideDevice = Type.Object({
  bundle_override_prn: Prn('The override.'),
  device_prn: Prn('A device the override applies to.'),
  inserted_at: Timestamp('When the device was added.'),
});
