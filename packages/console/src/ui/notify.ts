import { notifications } from '@mantine/notifications';
import { describeError } from './ApiError';

export const notifySuccess = (message: string) => notifications.show({ color: 'green', title: 'Done', message, closeButtonProps: { 'aria-label': 'Close notification' } });
export const notifyFailure = (error: unknown) => {
  const { title, detail, words } = describeError(error);
  notifications.show({ color: 'red', title: words.join(' '), message: `${title}: ${detail}`, closeButtonProps: { 'aria-label': 'Close notification' } });
};
