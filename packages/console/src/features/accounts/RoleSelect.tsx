import { Select } from '@mantine/core';
import type { Role } from '../../api/session';

const ROLES: { value: Role; label: string }[] = [
  { value: 'read', label: 'read: sees everything, changes nothing' },
  { value: 'write', label: 'write: manages devices, releases, binaries' },
  { value: 'admin', label: 'admin: also users, keys, webhooks, CAs' },
];

export function RoleSelect({ value, onChange }: { value: Role; onChange(role: Role): void }) {
  return <Select label="Role" data={ROLES} value={value} onChange={(v) => v && onChange(v as Role)} allowDeselect={false} />;
}
