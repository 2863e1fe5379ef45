/** Sign-in: username or email and password (POST /users/auth), or a pasted API key. */
import { Button, Center, Paper, PasswordInput, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { ApiErrorAlert } from '../../ui/ApiError';
import { sessionFor, tokenFor } from './api';

export function SignIn() {
  const { signIn } = useSession();
  const [mode, setMode] = useState<'password' | 'key'>('password');
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [apiKey, setApiKey] = useState('');
  const attempt = useMutation({
    mutationFn: async () => {
      if (mode === 'key') return sessionFor(apiKey.trim());
      const body = login.includes('@') ? { email: login.trim(), password } : { username: login.trim(), password };
      return sessionFor(await tokenFor(body));
    },
    onSuccess: signIn,
  });
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={420} component="main">
        <form onSubmit={(e) => { e.preventDefault(); attempt.mutate(); }}>
          <Stack>
            <Title order={1} size="h2">
              Sign in to Canopy
            </Title>
            <SegmentedControl
              aria-label="How to sign in"
              value={mode}
              onChange={(v) => setMode(v as 'password' | 'key')}
              data={[
                { value: 'password', label: 'With password' },
                { value: 'key', label: 'With API key' },
              ]}
            />
            {mode === 'password' ? (
              <>
                <TextInput label="Username or email" autoComplete="username" required value={login} onChange={(e) => setLogin(e.currentTarget.value)} />
                <PasswordInput label="Password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
              </>
            ) : (
              <PasswordInput label="API key" required value={apiKey} onChange={(e) => setApiKey(e.currentTarget.value)} description="Kept in this tab's session storage only; signing out forgets it." />
            )}
            <ApiErrorAlert error={attempt.error} title="Could not sign in" />
            <Button type="submit" loading={attempt.isPending}>
              Sign in
            </Button>
            <Text size="xs" c="dimmed">
              The first start of the server prints the admin user and password, and writes an admin API key to data/initial-api-key.
            </Text>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
