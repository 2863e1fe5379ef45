/** Loading skeletons and empty states that say what to do next. */
import { Paper, Skeleton, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

export function LoadingRows({ rows = 5, label = 'Loading' }: { rows?: number; label?: string }) {
  return (
    // A status, so its label is announced (a label on a plain div is not allowed, nor read).
    <Stack gap="xs" role="status" aria-busy="true" aria-label={label}>
      {Array.from({ length: rows }, (_, i) => (
        <Skeleton key={i} height={28} radius="sm" />
      ))}
    </Stack>
  );
}

export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <Paper withBorder p="lg" radius="md">
      <Stack gap="xs" align="flex-start">
        {/* Not a heading: an empty state sits under an h1 on one screen and an h2 on another. */}
        <Text fw={700} size="lg">
          {title}
        </Text>
        {children && <Text c="dimmed">{children}</Text>}
        {action}
      </Stack>
    </Paper>
  );
}
