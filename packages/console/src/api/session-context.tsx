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
  /** Ends the session on the server (DELETE /users/me/session), then forgets it here whatever the answer. */
  signOut(): Promise<void>;
  signingOut: boolean;
}

/** How long sign-out waits for the server before forgetting the session anyway (offline, server down). */
const SIGN_OUT_WAIT_MS = 5_000;

/**
 * Ends the token server-side so a copy of it (another tab, a leaked storage) stops working. A plain
 * API key is not a session: the server answers 409 and the key keeps working, as it should.
 */
async function revokeOnServer(session: Session): Promise<void> {
  try {
    await clientFor(session.apiKey).api.DELETE('/users/me/session', { signal: AbortSignal.timeout(SIGN_OUT_WAIT_MS) });
  } catch {
    // Offline, expired or a plain key: signing out here must still happen.
  }
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(loadSession);
  const queries = useQueryClient();
  const signIn = useCallback((next: Session) => {
    saveSession(next);
    setSession(next);
  }, []);
  const [signingOut, setSigningOut] = useState(false);
  const signOut = useCallback(async () => {
    if (session) {
      setSigningOut(true);
      await revokeOnServer(session);
      setSigningOut(false);
    }
    forgetSession();
    queries.clear();
    setSession(null);
  }, [queries, session]);
  const value = useMemo<SessionState>(
    () => ({ session, client: clientFor(session?.apiKey ?? null), canWrite: canWrite(session), isAdmin: isAdmin(session), signIn, signOut, signingOut }),
    [session, signIn, signOut, signingOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}
