/**
 * The Mantine theme. Mantine's default "dimmed" grey is below the WCAG AA contrast ratio for small
 * text on white (axe-core flags it), so secondary text uses a darker grey here; likewise white on
 * the default primary shade (6), so filled buttons use shade 8, and badges are dot badges.
 */
import { Alert, Badge, createTheme, NavLink, Notification, type CSSVariablesResolver } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: 8,
  // Coloured text on a tinted badge is below AA for 11 px text; a dot badge keeps dark text and carries the colour in its dot.
  components: {
    Badge: Badge.extend({ defaultProps: { variant: 'dot' } }),
    // The active link's light tint gives 4.0:1; filled gives white on shade 8.
    NavLink: NavLink.extend({ defaultProps: { variant: 'filled' } }),
    // Notification text is grey 6 by default (3.3:1).
    Notification: Notification.extend({ styles: { description: { color: 'var(--mantine-color-text)' } } }),
    // A light alert's title is shade 6 of its colour on its tint: yellow's and orange's are 2.7:1.
    Alert: Alert.extend({ styles: { title: { color: 'var(--mantine-color-text)' } } }),
  },
});

export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': '#495057' },
  dark: {},
});
