/**
 * Text -> clauses for the `search` query parameter. Pure syntax: which fields exist, which
 * operators they allow and what type their values must have is the server's business
 * (packages/server/src/search/compile.ts), because only a resource's field list knows that.
 *
 * Any input either parses or throws a SearchSyntaxError; the scanners are linear so a long
 * hostile string costs nothing more than its length.
 */
import { MAX_SEARCH_CLAUSES, SearchSyntaxError, type Operator, type SearchClause, type SearchErrorReason, type SearchValue } from './syntax';

const searchError = (reason: SearchErrorReason, clause: string, detail?: Record<string, unknown>) => new SearchSyntaxError(reason, clause, detail);

const FIELD = /^[a-z][a-z0-9_]*/;
const NUMBER = /^-?\d+(?:\.\d+)?$/;
const WHITESPACE = /\s/;

export function parseSearch(input: string): SearchClause[] {
  const texts = splitClauses(input.trim());
  if (texts.length > MAX_SEARCH_CLAUSES) {
    throw searchError('too_many_clauses', texts[MAX_SEARCH_CLAUSES], { max: MAX_SEARCH_CLAUSES });
  }
  return texts.map(parseClause);
}

/**
 * Cuts trimmed input at each ` and ` (any run of whitespace either side) that is outside a quoted
 * string. The quote tracking mirrors readQuoted, so a `\'` never ends a string here either.
 */
function splitClauses(input: string): string[] {
  if (input === '') throw searchError('empty', '');
  const clauses: string[] = [];
  let start = 0;
  let inQuote = false;
  for (let i = 0; i < input.length; i++) {
    const char = input[i];
    if (inQuote) {
      if (char === '\\') i++;
      else if (char === "'") inQuote = false;
      continue;
    }
    if (char === "'") {
      inQuote = true;
      continue;
    }
    if (!WHITESPACE.test(char)) continue;
    const word = skipWhitespace(input, i);
    const afterWord = word + 3;
    const isSeparator = input.startsWith('and', word) && afterWord < input.length && WHITESPACE.test(input[afterWord]);
    if (isSeparator) {
      clauses.push(input.slice(start, i));
      start = skipWhitespace(input, afterWord);
    }
    // Resume after what was just read; rescanning a whitespace run would make long runs quadratic.
    i = (isSeparator ? start : word) - 1;
  }
  const last = input.slice(start);
  if (inQuote) throw searchError('unterminated_string', last);
  clauses.push(last);
  return clauses;
}

function skipWhitespace(text: string, from: number): number {
  let i = from;
  while (i < text.length && WHITESPACE.test(text[i])) i++;
  return i;
}

function parseClause(text: string): SearchClause {
  const field = FIELD.exec(text)?.[0];
  if (field === undefined) throw searchError('malformed_clause', text);
  const operatorAt = skipWhitespace(text, field.length);
  const operator = readOperator(text, operatorAt);
  if (operator === undefined) throw searchError('malformed_clause', text);
  const valueText = text.slice(skipWhitespace(text, operatorAt + operator.length));
  return { field, operator, value: parseValue(valueText, text), text };
}

function readOperator(text: string, at: number): Operator | undefined {
  const two = text.slice(at, at + 2);
  if (two === '<=' || two === '>=') return two;
  const one = text[at];
  if (one === ':' || one === '-' || one === '~' || one === '<' || one === '>') return one;
  return undefined;
}

/** `clause` is only for the error, which must quote the whole clause, not just the value. */
function parseValue(valueText: string, clause: string): SearchValue {
  if (valueText === '') throw searchError('malformed_clause', clause);
  if (valueText[0] === "'") return { kind: 'string', text: readQuoted(valueText, clause) };
  if (valueText === 'true') return { kind: 'boolean', value: true };
  if (valueText === 'false') return { kind: 'boolean', value: false };
  if (valueText === 'null') return { kind: 'null' };
  if (NUMBER.test(valueText)) return { kind: 'number', text: valueText };
  // Most likely an unquoted string: the value is there, it just is none of the bare kinds.
  throw searchError('invalid_value', clause);
}

/**
 * The contents of a string that starts at valueText[0] and must end the clause. Only `\'` and
 * `\\` are escapes; any other backslash is refused rather than guessed at, so that a value means
 * one thing.
 */
function readQuoted(valueText: string, clause: string): string {
  let text = '';
  for (let i = 1; i < valueText.length; i++) {
    const char = valueText[i];
    if (char === "'") {
      if (i !== valueText.length - 1) throw searchError('malformed_clause', clause);
      return text;
    }
    if (char === '\\') {
      const escaped = valueText[i + 1];
      if (escaped === undefined) break;
      if (escaped !== "'" && escaped !== '\\') throw searchError('invalid_value', clause);
      text += escaped;
      i++;
      continue;
    }
    text += char;
  }
  throw searchError('unterminated_string', clause);
}
