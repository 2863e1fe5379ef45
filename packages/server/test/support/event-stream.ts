/**
 * A Server-Sent Events reader for tests of GET /events/stream: opens the stream over real HTTP
 * and collects its messages as they arrive.
 */
export interface StreamMessage {
  id: string | null;
  data: any;
}

export interface OpenStream {
  status: number;
  headers: Headers;
  messages: StreamMessage[];
  /** Comment lines seen (": keep-alive"), for the keep-alive test. */
  comments: string[];
  /** Resolves once `count` messages have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<StreamMessage[]>;
  close(): void;
}

export async function openEventStream(url: string, key: string | null, headers: Record<string, string> = {}): Promise<OpenStream & { body?: any }> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers }, signal: controller.signal });
  const messages: StreamMessage[] = [];
  const comments: string[] = [];
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const body = await response.json().catch(() => null);
    return { status: response.status, headers: response.headers, messages, comments, body, waitFor: async () => messages, close: () => controller.abort() };
  }
  const waiters: (() => void)[] = [];
  (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let id: string | null = null;
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length) messages.push({ id, data: JSON.parse(data.join('\n')) });
          for (const wake of waiters.splice(0)) wake();
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    messages,
    comments,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} stream messages, got ${messages.length}: ${JSON.stringify(messages.map((m) => m.data.data?.type))}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
      return messages.slice(0, count);
    },
    close: () => controller.abort(),
  };
}
