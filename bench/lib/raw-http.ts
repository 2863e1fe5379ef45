/**
 * HTTP/1.1 by hand for the TLS load generators: one request text built up front and written as
 * is, and a reader that finds where each response on a keep-alive stream ends. node:https spent
 * more CPU per request on its own machinery than the device API server it measured (about 0.25
 * against 0.17 ms); on a 2-core machine that CPU is taken from the server being measured.
 */

/**
 * The text of a request for `url`, ready to write on every request of a connection: a GET, or
 * with `body` a POST of that JSON.
 */
export function requestText(url: URL, headers: Record<string, string>, body?: string): string {
  const withBody = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
  const lines = Object.entries({ host: url.host, ...withBody, ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
  return `${body === undefined ? 'GET' : 'POST'} ${url.pathname}${url.search} HTTP/1.1\r\n${lines.join('')}\r\n${body ?? ''}`;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;
const CHUNKED = /\r\ntransfer-encoding:[ \t]*chunked/i;

/**
 * Reads the responses of one keep-alive connection from its chunks of bytes, in order. Bodies are
 * skipped, not kept: a response is known by its status and where it ends (content-length or
 * chunked encoding without trailers).
 */
export class ResponseReader {
  private pending: Buffer | null = null;
  private status = 0;
  /** Body bytes still to skip (content-length), or -1 while reading chunked framing, or null between responses. */
  private bodyLeft: number | null = null;

  /** Feeds bytes; returns the statuses of the responses they complete. */
  push(chunk: Buffer): number[] {
    let data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    const done: number[] = [];
    for (;;) {
      if (this.bodyLeft === null) {
        const end = data.indexOf(HEAD_END);
        if (end < 0) break;
        const head = data.toString('latin1', 0, end + 2);
        this.status = Number(head.slice(9, 12));
        const length = CONTENT_LENGTH.exec(head);
        this.bodyLeft = length ? Number(length[1]) : CHUNKED.test(head) ? -1 : 0;
        data = data.subarray(end + HEAD_END.length);
      }
      if (this.bodyLeft >= 0) {
        const skipped = Math.min(this.bodyLeft, data.length);
        this.bodyLeft -= skipped;
        data = data.subarray(skipped);
        if (this.bodyLeft > 0) break;
      } else {
        const chunkEnd = this.chunkedEnd(data);
        if (chunkEnd === null) break;
        data = data.subarray(chunkEnd);
      }
      done.push(this.status);
      this.bodyLeft = null;
    }
    if (data.length > 0) this.pending = Buffer.from(data);
    return done;
  }

  /** Where the chunked body at the start of `data` ends (after its empty last chunk), or null when not all of it is here yet. */
  private chunkedEnd(data: Buffer): number | null {
    let at = 0;
    for (;;) {
      const lineEnd = data.indexOf(CRLF, at);
      if (lineEnd < 0) return null;
      const size = parseInt(data.toString('latin1', at, lineEnd), 16);
      if (Number.isNaN(size)) throw new Error('malformed chunked body');
      const next = lineEnd + 2 + size + 2;
      if (next > data.length) return null;
      if (size === 0) return next;
      at = next;
    }
  }
}
