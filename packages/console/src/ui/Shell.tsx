/** The frame of every signed-in screen: a header with the user, and the navigation bar (a drawer below 768 px). */
import { AppShell, Burger, Button, Group, NavLink, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Link, useRouterState } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { useSession } from '../api/session-context';
import classes from './Shell.module.css';

const NAV = [
  { to: '/fleet', label: 'Fleet' },
  { to: '/products', label: 'Products and cohorts' },
  { to: '/artifacts', label: 'Artifacts and binaries' },
  { to: '/bundles', label: 'Bundles' },
  { to: '/releases', label: 'Releases' },
  { to: '/bundle-overrides', label: 'Bundle overrides' },
  { to: '/events', label: 'Events' },
  { to: '/signing-keys', label: 'Signing keys' },
  { to: '/ca-certificates', label: 'CA certificates', admin: true },
  { to: '/webhooks', label: 'Webhooks', admin: true },
  { to: '/users', label: 'Users', admin: true },
  { to: '/api-keys', label: 'API keys', admin: true },
  { to: '/sessions', label: 'Your sessions' },
] as const;

export function Shell({ children }: { children: ReactNode }) {
  const { session, signOut, signingOut, isAdmin } = useSession();
  const [opened, { toggle, close }] = useDisclosure();
  const path = useRouterState({ select: (s) => s.location.pathname });
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <a href="#main-content" className={classes.skipLink}>
        Skip to content
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="xs" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Text fw={700}>Canopy</Text>
          </Group>
          <Group gap="xs" wrap="nowrap">
            <Text size="sm" visibleFrom="xs" data-testid="signed-in-as">
              {session?.name} ({session?.role})
            </Text>
            <Button size="xs" variant="default" onClick={() => void signOut()} loading={signingOut}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main navigation" component="nav">
        {NAV.filter((item) => isAdmin || !('admin' in item)).map((item) => (
          <NavLink key={item.to} component={Link} to={item.to} label={item.label} active={path.startsWith(item.to)} onClick={close} />
        ))}
      </AppShell.Navbar>
      {/* AppShell.Main is the page's one <main>; the skip link above lands on it. */}
      <AppShell.Main id="main-content" tabIndex={-1}>
        {children}
      </AppShell.Main>
    </AppShell>
  );
}
