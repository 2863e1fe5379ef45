/**
 * The binary state machine, with the binary's place in it: uploadable -> hashable -> hashing ->
 * signable -> signed (destroyed from any). A failed verification sends it back to hashable with
 * its `hash_error`. Shown as it moves: the binary page reads the binary again while it is moving.
 */
import { Alert, Badge, Stepper } from '@mantine/core';

export const BINARY_STATES = ['uploadable', 'hashable', 'hashing', 'signable', 'signed'] as const;
const MOVING = new Set(['hashable', 'hashing']);

export const isMoving = (state: string | undefined) => Boolean(state && MOVING.has(state));

const STEP_TEXT: Record<(typeof BINARY_STATES)[number], string> = {
  uploadable: 'parts being sent',
  hashable: 'all parts held',
  hashing: 'server verifying',
  signable: 'verified, unsigned',
  signed: 'carries a signature',
};

export function BinaryStates({ state, hashError }: { state: string; hashError?: unknown }) {
  if (state === 'destroyed') return <Badge color="gray">destroyed</Badge>;
  const at = BINARY_STATES.indexOf(state as (typeof BINARY_STATES)[number]);
  return (
    <>
      <Stepper active={state === 'signed' ? BINARY_STATES.length : at} size="xs" data-testid="binary-state" data-state={state} allowNextStepsSelect={false}>
        {BINARY_STATES.map((s) => (
          <Stepper.Step key={s} label={s} description={STEP_TEXT[s]} />
        ))}
      </Stepper>
      {hashError ? (
        <Alert color="red" title="The last verification failed">
          {typeof hashError === 'string' ? hashError : JSON.stringify(hashError)}
        </Alert>
      ) : null}
    </>
  );
}

export const stateColour = (state: string) => ({ signed: 'green', signable: 'teal', hashing: 'blue', hashable: 'blue', uploadable: 'yellow' })[state] ?? 'gray';
