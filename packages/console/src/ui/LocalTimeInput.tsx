/** A moment typed in the user's time zone (datetime-local), sent to the API as RFC 3339 UTC. */
import { TextInput } from '@mantine/core';

export const toApiTime = (local: string): string | null => (local ? new Date(local).toISOString() : null);

export function LocalTimeInput({ label, value, onChange, required }: { label: string; value: string; onChange(value: string): void; required?: boolean }) {
  return <TextInput label={`${label} (your time)`} type="datetime-local" value={value} onChange={(e) => onChange(e.currentTarget.value)} required={required} w={230} />;
}
