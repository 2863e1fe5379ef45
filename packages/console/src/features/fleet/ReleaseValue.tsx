/** A fleet filter's release, picked by name (with its cohort's): the releases are asked for only once such a condition is added. */
import { Select } from '@mantine/core';
import { namesOf, useCohorts } from '../products/queries';
import { useAllReleases } from '../releases/queries';

export function ReleaseValue({ index, value, onChange }: { index: number; value: string | null; onChange(value: string): void }) {
  const releases = useAllReleases();
  const cohorts = useCohorts();
  const cohortNames = namesOf(cohorts.data);
  const data = (releases.data ?? []).map((r) => ({ value: r.prn, label: `${r.name} (${cohortNames.get(r.cohort_prn) ?? '…'})` }));
  return <Select aria-label={`Value of condition ${index + 1}`} data={data} value={value} searchable w={240} onChange={(v) => onChange(v ?? '')} />;
}
