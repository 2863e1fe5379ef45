/** The events a webhook delivers: one box per subscribable event of the catalogue, with what it means. */
import { Checkbox, Stack } from '@mantine/core';
import { WEBHOOK_EVENTS } from './queries';

export function WebhookEventsField({ value, onChange }: { value: string[]; onChange(next: string[]): void }) {
  return (
    <Checkbox.Group label="Events delivered" value={value} onChange={onChange}>
      <Stack gap={6} mt={4}>
        {WEBHOOK_EVENTS.map(({ name, summary }) => (
          <Checkbox key={name} value={name} label={name} description={summary} />
        ))}
      </Stack>
    </Checkbox.Group>
  );
}
