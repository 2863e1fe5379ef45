/** Errors from the Canopy API: the HTTP status and the first `{code, context}` of the error body. */
export interface ApiErrorEntry {
  code: string;
  context: Record<string, unknown>;
}

export class CanopyApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly context: Record<string, unknown>;
  /** Every entry of `{"errors": [...]}` (validation answers one per failing field). */
  readonly errors: ApiErrorEntry[];
  readonly method: string;
  readonly path: string;

  constructor(init: { status: number; errors: ApiErrorEntry[]; method: string; path: string }) {
    const first = init.errors[0] ?? { code: 'http_error', context: {} };
    super(`${init.method} ${init.path} answered ${init.status} ${first.code} ${JSON.stringify(first.context)}`);
    this.name = 'CanopyApiError';
    this.status = init.status;
    this.code = first.code;
    this.context = first.context;
    this.errors = init.errors;
    this.method = init.method;
    this.path = init.path;
  }

  /** Builds the error from any non-2xx body, even one that is not Canopy's error shape (a proxy's HTML page). */
  static fromBody(status: number, body: unknown, method: string, path: string): CanopyApiError {
    const errors = (body as { errors?: unknown })?.errors;
    if (Array.isArray(errors) && errors.every((e) => typeof e?.code === 'string')) {
      return new CanopyApiError({ status, errors: errors.map((e) => ({ code: e.code, context: e.context ?? {} })), method, path });
    }
    const context = body === null || body === undefined || body === '' ? {} : { body: typeof body === 'string' ? body.slice(0, 500) : body };
    return new CanopyApiError({ status, errors: [{ code: 'http_error', context }], method, path });
  }

  /** Reads a non-2xx answer's body (JSON when it parses, else its text) and builds the error from it. */
  static async fromResponse(response: Response, method: string, path: string): Promise<CanopyApiError> {
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: fromBody keeps the text
    }
    return CanopyApiError.fromBody(response.status, body, method, path);
  }
}

/** A failure before any HTTP answer (DNS, refused connection, TLS). Kept apart so callers can tell them from API errors. */
export class CanopyNetworkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CanopyNetworkError';
  }
}
