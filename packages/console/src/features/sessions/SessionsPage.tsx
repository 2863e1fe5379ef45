/**
 * Your sessions: where you are signed in (GET /users/me/sessions), and revoking one at once
 * (DELETE /users/me/sessions/{prn}). Open to every role: anyone may end their own access. The
 * session of this tab is ended with Sign out.
 */
import { Badge, Stack, Text, Title } from '@mantine/core';
import { ResourceTable } from '../../ui/ResourceTable';
import { Time } from '../../ui/Time';
import { sessionKeys, useMySessions, type UserSession } from './queries';

export function SessionsPage() {
  const sessions = useMySessions();
  return (
    <Stack>
      <Title order={1} size="h2">
        Your sessions
      </Title>
      <Text size="sm" c="dimmed">
        Each sign-in with a password is a session. It ends when unused for a while, at its latest end, or when revoked here; revoke any you do not recognise.
      </Text>
      <ResourceTable<UserSession>
        label="Sessions"
        query={sessions}
        listKey={sessionKeys.mine}
        rowTestId="session-row"
        minWidth={640}
        columns={[
          { header: 'Browser or client', cell: (s) => <>{s.user_agent ?? 'Unknown'} {s.current && <Badge variant="light">This tab</Badge>}</> },
          { header: 'Signed in', cell: (s) => <Time value={s.inserted_at} /> },
          { header: 'Last used', cell: (s) => <Time value={s.last_used_at} /> },
          { header: 'Ends if unused', cell: (s) => <Time value={s.expires_at} /> },
        ]}
        empty={{ title: 'No sessions', text: 'Signed in with an API key: a key is not a session. Keys are revoked on the API keys screen.' }}
        remove={{
          path: '/users/me/sessions/{prn}',
          verb: 'Revoke',
          anyRole: true,
          question: () => 'Revoke this session? Whoever uses it is signed out at once.',
          done: () => 'Session revoked',
          instead: (s) => (s.current ? <Text size="sm">Use Sign out</Text> : null),
          testId: 'session-action',
        }}
      />
    </Stack>
  );
}
