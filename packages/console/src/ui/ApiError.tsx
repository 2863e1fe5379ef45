/** An API failure as the user should see it: what went wrong in words, then the code and the field or parameter it names. */
import { Alert, Code, Stack, Text } from '@mantine/core';
import { CanopyApiError, CanopyNetworkError } from '@canopy/sdk/browser';
import { errorInWords } from './error-words';

/** `words`: the sentences to show; `title` and `detail`: the code and what it names, for reference. */
export function describeError(error: unknown): { title: string; detail: string; words: string[] } {
  if (error instanceof CanopyApiError) {
    const entry = error.errors[0];
    const context = (entry?.context ?? {}) as Record<string, unknown>;
    const where = context.field ?? context.parameter;
    const reason = context.reason ? ` (${String(context.reason)})` : '';
    return {
      title: `${error.status} ${entry?.code ?? 'error'}`,
      detail: where ? `${String(where)}${reason}` : reason.trim() || error.message,
      words: errorInWords(error.errors as { code: string; context?: Record<string, unknown> }[]),
    };
  }
  // A refusal made in the page itself (no matching device, a bad key file) is no network error.
  const network = error instanceof CanopyNetworkError || (error instanceof TypeError && /fetch/i.test(error.message));
  const detail = error instanceof Error ? error.message : String(error);
  return { title: network ? 'Network error' : 'Error', detail, words: [network ? 'The server could not be reached. Check the connection and try again.' : detail] };
}

export function ApiErrorAlert({ error, title = 'The request failed' }: { error: unknown; title?: string }) {
  if (!error) return null;
  const { title: code, detail, words } = describeError(error);
  return (
    <Alert color="red" title={title} role="alert">
      <Stack gap={4}>
        {words.map((line) => (
          <Text size="sm" key={line}>
            {line}
          </Text>
        ))}
        <Text size="xs" c="dimmed">
          <Code>{code}</Code> {detail}
        </Text>
      </Stack>
    </Alert>
  );
}
