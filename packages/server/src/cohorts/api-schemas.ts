/** The wire schemas of cohorts: the cohort as answered (admin API, and the device API's expansions). */
import { Type } from 'typebox';
import { Description, Name, Nullable, Prn, ResourceFields } from '../http/schemas';
import { MaintenanceWindows } from '../releases/api-schemas';

const PRODUCT_PRN_EXAMPLE = 'prn:1:9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70:product:5c2d8e1f-3a4b-4c5d-9e6f-7a8b9c0d1e2f';
export const ProductPrn = (description: string) => Prn(description, PRODUCT_PRN_EXAMPLE);
export const CohortDescription = Nullable(Description('What the cohort is for, 1 to 256 characters, or null.'));

export const Cohort = Type.Object({
  ...ResourceFields,
  product_prn: ProductPrn('The product whose devices the cohort groups.'),
  name: Name('Name of the cohort, 1 to 128 characters.'),
  description: CohortDescription,
  maintenance_windows: Nullable(MaintenanceWindows("Weekly windows this cohort's releases are offered in to devices that do not hold them yet; a release's own windows replace these. Null: always.")),
});
export const CohortWindows = Type.Optional(Nullable(MaintenanceWindows("Weekly windows this cohort's releases are offered in to devices that do not hold them yet; a release's own windows replace these. Null: always.")));
