/** Measures the hello-world baseline with the same load settings as the figure it accompanies. */
import { load, type LoadOptions, type LoadResult } from './load';
import { answers, freePort, startNode } from './processes';
import { WARM_UP_SECONDS } from './warm-up';

/** `bodyBytes`: answer a fixed body of that size instead of `{"hello":"world"}` (hello-world.ts). */
export async function helloWorldBaseline(options: Omit<LoadOptions, 'url'>, bodyBytes = 0): Promise<LoadResult> {
  const port = await freePort();
  const env = { PORT: String(port), ...(bodyBytes > 0 ? { BODY_BYTES: String(bodyBytes) } : {}) };
  const server = await startNode('bench/lib/hello-world.ts', env, answers(`http://127.0.0.1:${port}/`));
  try {
    await load({ ...options, url: `http://127.0.0.1:${port}`, seconds: WARM_UP_SECONDS }); // warm-up
    return await load({ ...options, url: `http://127.0.0.1:${port}` });
  } finally {
    await server.stop();
  }
}
