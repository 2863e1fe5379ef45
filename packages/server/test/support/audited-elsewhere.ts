/**
 * Audited writes that need signed TUF metadata made in order (a root, then its proposals): the
 * walk cannot make them from a body alone, so tuf.test.ts runs each and checks its audit event.
 */
export const AUDITED_IN_TUF_TEST = ['POST /tuf/online_keys', 'PUT /tuf/root', 'POST /tuf/root_proposals', 'PUT /tuf/root_proposals/{version}/signatures', 'POST /tuf/root_proposals/{version}/commit', 'PUT /tuf/metadata/{role}'];
