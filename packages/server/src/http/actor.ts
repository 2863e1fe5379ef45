/** Who is calling: resolved from the API key on every admin request. */
export type Role = 'read' | 'write' | 'admin';

export interface Actor {
  organizationId: string;
  role: Role;
  /** `legacy` keys may not use the current-only routes (POST /devices/{prn}/update). */
  keyKind: 'legacy' | 'current';
  keyId: string;
  userId: string | null;
  /** A session key (POST /users/auth): it can be signed out, and its use renews it. */
  isSession?: boolean;
  /** What events record as `actor_prn`: the user behind a session key, else the key itself. */
  prn: string;
}

const RANK: Record<Role, number> = { read: 0, write: 1, admin: 2 };

export function roleAllows(held: Role, required: Role): boolean {
  return RANK[held] >= RANK[required];
}
