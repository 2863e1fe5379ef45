/**
 * The query parameters of the filters GET /events and GET /events/stream share (filters.ts
 * applies them): one schema, so the list and the live stream accept the same types and subtypes.
 */
import { Type } from 'typebox';
import { AUDIT_SUBTYPES } from './audit-entry';
import { EVENT_TYPES } from './schema';

/** Every subtype an event of any type can have (audit events add their actions). */
export const EVENT_SUBTYPES = [
  ...new Set([
    'release_changed', 'claimed_release', 'checked_for_release', 'connected', 'disconnected', 'updated', 'authentication_failed', 'created',
    'request_failed', 'test_fire', 'requested', 'opened', 'closed', 'expired', 'update_reported', 'locked', 'session_revoked', 'halted', ...AUDIT_SUBTYPES,
  ]),
];

export const EVENT_FILTER_QUERY = {
  inserted_at_lt: Type.Optional(Type.String({ description: 'Only events before this date-time.', examples: ['2025-07-01T00:00:00Z'] })),
  inserted_at_gte: Type.Optional(Type.String({ description: 'Only events at or after this date-time.', examples: ['2025-06-01T00:00:00Z'] })),
  actor_prn: Type.Optional(Type.String({ maxLength: 200, description: 'Only events caused by this user, API key or device (audit events also match the API key a user acted with).' })),
  resource_prn: Type.Optional(Type.String({ maxLength: 200, description: 'Only events about this resource.' })),
  type: Type.Optional(Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)), { description: 'Only events of this type.' })),
  subtype: Type.Optional(Type.Union(EVENT_SUBTYPES.map((t) => Type.Literal(t)), { description: 'Only events of this subtype.' })),
};
