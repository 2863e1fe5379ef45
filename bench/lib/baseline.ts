/** Measures the hello-world baseline with the same load settings as the figure it accompanies. */
import { load, type LoadOptions, type LoadResult } from './load';
import { answers, freePort, startNode } from './processes';

export async function helloWorldBaseline(options: Omit<LoadOptions, 'url'>): Promise<LoadResult> {
  const port = await freePort();
  const server = await startNode('bench/lib/hello-world.ts', { PORT: String(port) }, answers(`http://127.0.0.1:${port}/`));
  try {
    await load({ ...options, url: `http://127.0.0.1:${port}`, seconds: 2 }); // warm-up
    return await load({ ...options, url: `http://127.0.0.1:${port}` });
  } finally {
    await server.stop();
  }
}
