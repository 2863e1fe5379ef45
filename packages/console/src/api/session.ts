/**
 * The signed-in session: an API key (pasted, or the token POST /users/auth answered) kept in
 * sessionStorage, so it lives as long as the tab and is never written to disk by the console.
 * Sign-out forgets it.
 */
export const SESSION_STORAGE_KEY = 'canopy.console.session';

export type Role = 'read' | 'write' | 'admin';

export interface Session {
  apiKey: string;
  role: Role;
  /** Who signed in: the username or email, or "API key". */
  name: string;
  organizationPrn: string;
}

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(SESSION_STORAGE_KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(SESSION_STORAGE_KEY, JSON.stringify(session));
}

export function forgetSession(): void {
  sessionStorage.removeItem(SESSION_STORAGE_KEY);
}

export const canWrite = (session: Session | null) => session?.role === 'write' || session?.role === 'admin';
export const isAdmin = (session: Session | null) => session?.role === 'admin';
