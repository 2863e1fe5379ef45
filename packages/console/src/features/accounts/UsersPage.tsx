/** Users of the organization (admins only): list, create (email and/or username, password, role), delete. */
import { Badge, Button, Group, Paper, PasswordInput, SimpleGrid, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { Role } from '../../api/session';
import { useSession } from '../../api/session-context';
import { AdminOnly } from '../../ui/AdminOnly';
import { ApiErrorAlert } from '../../ui/ApiError';
import { ResourceTable } from '../../ui/ResourceTable';
import { notifySuccess } from '../../ui/notify';
import { Time } from '../../ui/Time';
import { accountKeys, createUser, useUsers, type User } from './queries';
import { RoleSelect } from './RoleSelect';

export function UsersPage() {
  return (
    <Stack>
      <Title order={1} size="h2">
        Users
      </Title>
      <AdminOnly what="users">
        <CreateUser />
        <UserList />
      </AdminOnly>
    </Stack>
  );
}

function CreateUser() {
  const { client } = useSession();
  const queries = useQueryClient();
  const [email, setEmail] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('read');
  const create = useMutation({
    mutationFn: () => createUser(client, { email: email.trim() || null, username: username.trim() || null, password, role }),
    onSuccess: () => {
      notifySuccess(`User ${username || email} created`);
      setEmail('');
      setUsername('');
      setPassword('');
      void queries.invalidateQueries({ queryKey: accountKeys.users });
    },
  });
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs" component="form" onSubmit={(e) => { e.preventDefault(); create.mutate(); }}>
        <Title order={2} size="h4">
          New user
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label="Email" type="email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
          <TextInput label="Username" description="An email, a username, or both" value={username} onChange={(e) => setUsername(e.currentTarget.value)} />
          <PasswordInput label="Password" description="At least 8 characters" value={password} onChange={(e) => setPassword(e.currentTarget.value)} required />
          <RoleSelect value={role} onChange={setRole} />
        </SimpleGrid>
        <Group>
          <Button type="submit" loading={create.isPending}>
            Create user
          </Button>
        </Group>
        <ApiErrorAlert error={create.error} title="Could not create the user" />
      </Stack>
    </Paper>
  );
}

function UserList() {
  const users = useUsers();
  return (
    <ResourceTable<User>
      label="Users"
      query={users}
      listKey={accountKeys.users}
      rowTestId="user-row"
      columns={[
        { header: 'User', cell: (user) => [user.username, user.email].filter(Boolean).join(' / ') },
        { header: 'Role', cell: (user) => <Badge>{user.role}</Badge> },
        { header: 'Created', cell: (user) => <Time value={user.inserted_at} /> },
      ]}
      empty={{ title: 'No users yet', text: 'Create a user above so a colleague can sign in with a password.' }}
      remove={{ path: '/users/{prn}', question: (user) => `Delete ${user.username ?? user.email}? Their sessions stop working at once.`, done: () => 'User deleted' }}
    />
  );
}
