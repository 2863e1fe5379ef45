/** A secret the API shows only once (a webhook secret, a new API key): copy it now, it is not shown again. */
import { Button, Code, CopyButton, Group, Paper, Stack, Text } from '@mantine/core';

export function SecretOnce({ label, value, onDismiss }: { label: string; value: string; onDismiss(): void }) {
  return (
    // A bordered panel rather than a yellow Alert: the Alert's tinted title is below AA contrast.
    <Paper withBorder p="sm" role="status" style={{ borderColor: 'var(--mantine-color-orange-8)' }}>
      <Stack gap="xs">
        {/* Not a heading: it appears under an h1 on one screen and an h2 on another. */}
        <Text fw={700}>{label}</Text>
        <Text size="sm">Copy it now: it is shown only this once.</Text>
        <Code block data-testid="secret-once" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
          {value}
        </Code>
        <Group gap="xs">
          <CopyButton value={value}>
            {({ copied, copy }) => (
              <Button size="xs" variant="default" onClick={copy}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
          <Button size="xs" variant="subtle" onClick={onDismiss}>
            I have stored it
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
