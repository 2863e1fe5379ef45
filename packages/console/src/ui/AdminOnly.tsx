/** Screens only admins can use (the API answers 403 to other roles): say so instead of failing. */
import type { ReactNode } from 'react';
import { useSession } from '../api/session-context';
import { EmptyState } from './States';

export function AdminOnly({ what, children }: { what: string; children: ReactNode }) {
  const { isAdmin } = useSession();
  if (!isAdmin) return <EmptyState title={`Only admins manage ${what}`}>Ask an admin of your organization, or sign in with an admin key.</EmptyState>;
  return <>{children}</>;
}
