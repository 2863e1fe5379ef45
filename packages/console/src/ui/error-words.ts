/**
 * An API error in words (the error shape: `{"errors": [{"code", "context"}]}`, docs: Admin API >
 * Errors): a sentence per problem, naming the field or parameter as a person would. Codes the
 * console does not know are still said, in words made from the code. The code itself stays
 * visible beside the sentence (ApiError.tsx), for a search or a support request.
 */
export interface ErrorEntry {
  code: string;
  context?: Record<string, unknown>;
}

/** `cohort_prn` -> `Cohort`, `tags[2]` -> `Tags`, `jitp.product_name` -> `Product name`. */
export function fieldWords(field: string): string {
  const last = field.split('.').pop()!.replace(/\[\d+\]$/, '').replace(/_prns?$/, '').replace(/_/g, ' ');
  return last.charAt(0).toUpperCase() + last.slice(1);
}

const words = (code: string) => code.replace(/_/g, ' ');
const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;

function reasonWords(reason: string, context: Record<string, unknown>): string {
  const { max, min } = context as { max?: number; min?: number };
  switch (reason) {
    case 'required':
      return 'is required';
    case 'taken':
      return 'is already taken';
    case 'too_long':
      return max !== undefined ? `is too long (at most ${max})` : 'is too long';
    case 'too_short':
      return min !== undefined ? `is too short (at least ${min})` : 'is too short';
    case 'too_large':
      return max !== undefined ? `is too large (at most ${max})` : 'is too large';
    case 'too_many':
      return max !== undefined ? `has too many entries (at most ${max})` : 'has too many entries';
    case 'invalid_format':
      return 'is not in the expected format';
    case 'invalid_value':
      return 'has a value that is not accepted here';
    case 'unknown':
      return 'names something that does not exist (or belongs to another organization)';
    case 'in_past':
      return 'must be in the future';
    case 'must_be_https':
      return 'must be an https:// address';
    default:
      return `is not accepted (${words(reason)})`;
  }
}

export function entryInWords(entry: ErrorEntry): string {
  const context = entry.context ?? {};
  const reason = typeof context.reason === 'string' ? context.reason : '';
  switch (entry.code) {
    case 'validation':
      return sentence(`${fieldWords(String(context.field ?? 'a field'))} ${reasonWords(reason, context)}`);
    case 'parameter':
      return sentence(`the ${words(String(context.parameter ?? ''))} parameter ${reasonWords(reason, context)}`);
    case 'not_found':
      return sentence(`the ${words(String(context.resource ?? 'resource'))} was not found: it may have been deleted, or belong to another organization`);
    case 'unauthorized':
      return sentence(`your role may not do this: it needs the ${String(context.required_role ?? 'right')} role`);
    case 'unauthenticated':
      return 'You are not signed in, or your session has ended. Sign in again.';
    case 'invalid_state_transition':
      return sentence(
        context.current_state && context.required_state
          ? `not while it is ${words(String(context.current_state))}: it must be ${words(String(context.required_state))} first`
          : 'not in its present state',
      );
    case 'already_exists':
      return 'It already exists.';
    case 'internal_error':
      return 'The server failed to answer. Try again; if it keeps failing, the server log says why.';
    default:
      return sentence(words(entry.code));
  }
}

/** Every problem of an answer, each in words. */
export function errorInWords(entries: readonly ErrorEntry[]): string[] {
  return entries.length === 0 ? ['The request failed.'] : entries.map(entryInWords);
}
