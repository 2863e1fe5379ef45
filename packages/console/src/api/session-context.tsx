import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { clientFor } from './client';
import { canWrite, forgetSession, isAdmin, loadSession, saveSession, type Session } from './session';

interface SessionState {
  session: Session | null;
  client: CanopyClient;
  canWrite: boolean;
  isAdmin: boolean;
  signIn(session: Session): void;
  signOut(): void;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(loadSession);
  const queries = useQueryClient();
  const signIn = useCallback((next: Session) => {
    saveSession(next);
    setSession(next);
  }, []);
  const signOut = useCallback(() => {
    forgetSession();
    queries.clear();
    setSession(null);
  }, [queries]);
  const value = useMemo<SessionState>(
    () => ({ session, client: clientFor(session?.apiKey ?? null), canWrite: canWrite(session), isAdmin: isAdmin(session), signIn, signOut }),
    [session, signIn, signOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}
