/** The create form of a list screen: a titled panel, its fields, one submit button, the API's refusal or what it answered. */
import { Button, Group, Paper, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { ApiErrorAlert } from './ApiError';

export interface CreateFormProps {
  title: string;
  submitLabel: string;
  onSubmit(): void;
  pending: boolean;
  error: unknown;
  children: ReactNode;
  /** Shown under the form once it succeeded, such as a secret the API shows only once. */
  outcome?: ReactNode;
}

export function CreateForm({ title, submitLabel, onSubmit, pending, error, children, outcome }: CreateFormProps) {
  return (
    <Paper withBorder p="sm">
      <Stack
        gap="xs"
        component="form"
        aria-label={title}
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit();
        }}
      >
        <Title order={2} size="h4">
          {title}
        </Title>
        {children}
        <Group>
          <Button type="submit" loading={pending}>
            {submitLabel}
          </Button>
        </Group>
        <ApiErrorAlert error={error} title={`Could not ${submitLabel.toLowerCase()}`} />
        {outcome}
      </Stack>
    </Paper>
  );
}
