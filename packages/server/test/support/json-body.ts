/** Reading a test client's HTTP answer: the body whole, as JSON when it parses, and the headers. */
import type { IncomingMessage } from 'node:http';

/** The answer's body: parsed JSON, the text when it is not JSON, null when empty. */
export async function readJsonBody(response: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text; // not JSON: keep the text
  }
}

/** The answer's single-valued headers as a fetch `Headers`. */
export function headersOf(response: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') headers.set(name, value);
  return headers;
}
