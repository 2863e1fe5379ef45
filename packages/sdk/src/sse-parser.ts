/**
 * A Server-Sent Events parser (the WHATWG "event stream interpretation", the parts Canopy's
 * GET /events/stream uses: `id`, `data`, `retry`, comments). Pure: fed text chunks as they
 * arrive, it answers the complete messages; a message split across chunks waits for its end.
 */
export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

export interface SseParser {
  /** The messages completed by this chunk, in order. */
  push(chunk: string): SseMessage[];
  /** The last `retry:` value seen (milliseconds), or null. */
  readonly retryMs: number | null;
}

export function createSseParser(): SseParser {
  let buffer = '';
  let id: string | null = null;
  let event = '';
  let data: string[] = [];
  let retryMs: number | null = null;

  function line(text: string, out: SseMessage[]): void {
    if (text === '') {
      if (data.length) out.push({ id, event: event || 'message', data: data.join('\n') });
      data = [];
      event = '';
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'event') event = value;
    else if (field === 'retry' && /^\d+$/.test(value)) retryMs = Number(value);
  }

  return {
    push(chunk) {
      buffer += chunk;
      const out: SseMessage[] = [];
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
        if (!match || (match[0] === '\r' && match.index === buffer.length - 1)) break;
        line(buffer.slice(0, match.index), out);
        buffer = buffer.slice(match.index + match[0].length);
      }
      return out;
    },
    get retryMs() {
      return retryMs;
    },
  };
}
