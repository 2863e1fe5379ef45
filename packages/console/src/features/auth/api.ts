/** Sign-in's two calls, through the SDK's typed client. */
import { clientFor } from '../../api/client';
import { answerOf } from '../../api/lists';
import type { BodyOf } from '../../api/paths';
import type { Session } from '../../api/session';

/** Who a key acts as: GET /users/me answers the role for user tokens and plain keys alike. */
export async function sessionFor(apiKey: string): Promise<Session> {
  const me = await answerOf(clientFor(apiKey).api.GET('/users/me'));
  return { apiKey, role: me.data.role, name: me.data.username ?? me.data.email ?? 'API key', organizationPrn: me.data.organization_prn };
}

/** A user's token for a username or email and password (POST /users/auth). */
export const tokenFor = (body: BodyOf<'/users/auth', 'post'>) => answerOf(clientFor(null).api.POST('/users/auth', { body })).then((b) => b.data.token);
