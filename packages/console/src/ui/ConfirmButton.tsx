/** A destructive action behind a confirmation dialog. */
import { Button, Group, Modal, Text, type ButtonProps } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ReactNode } from 'react';

export function ConfirmButton({ children, question, onConfirm, loading, ...button }: ButtonProps & { children: ReactNode; question: string; onConfirm(): void }) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button color="red" variant="light" {...button} loading={loading} onClick={open}>
        {children}
      </Button>
      <Modal opened={opened} onClose={close} title="Please confirm" centered closeButtonProps={{ 'aria-label': 'Close' }}>
        <Text mb="md">{question}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button
            color="red"
            onClick={() => {
              close();
              onConfirm();
            }}
          >
            Confirm
          </Button>
        </Group>
      </Modal>
    </>
  );
}
