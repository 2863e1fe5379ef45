/** An API failure as the user should see it: the error code and the field or parameter it names. */
import { Alert, Code, Text } from '@mantine/core';
import { CanopyApiError, CanopyNetworkError } from '@canopy/sdk/browser';

export function describeError(error: unknown): { title: string; detail: string } {
  if (error instanceof CanopyApiError) {
    const entry = error.errors[0];
    const context = (entry?.context ?? {}) as Record<string, unknown>;
    const where = context.field ?? context.parameter;
    const reason = context.reason ? ` (${String(context.reason)})` : '';
    return { title: `${error.status} ${entry?.code ?? 'error'}`, detail: where ? `${String(where)}${reason}` : reason.trim() || error.message };
  }
  // A refusal made in the page itself (no matching device, a bad key file) is no network error.
  const title = error instanceof CanopyNetworkError || (error instanceof TypeError && /fetch/i.test(error.message)) ? 'Network error' : 'Error';
  return { title, detail: error instanceof Error ? error.message : String(error) };
}

export function ApiErrorAlert({ error, title = 'The request failed' }: { error: unknown; title?: string }) {
  if (!error) return null;
  const { title: code, detail } = describeError(error);
  return (
    <Alert color="red" title={title} role="alert">
      <Text size="sm">
        <Code>{code}</Code> {detail}
      </Text>
    </Alert>
  );
}
