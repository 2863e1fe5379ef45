/**
 * Where success and failure notifications appear (ui/notify.ts). Loaded after the first screen,
 * not with it: the component brings its transition and scroll-lock libraries (about 15 kB
 * compressed) that no first screen needs, and a notification shown before it arrives waits in
 * Mantine's store until it mounts.
 */
import { Notifications } from '@mantine/notifications';

export function NotificationsHost() {
  return <Notifications position="top-right" />;
}
