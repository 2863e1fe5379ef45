/**
 * Times an admin call every `everyMs` from a worker thread (the reconnect storm's test and
 * bench/storm.ts), so the figure is the server's and not the storm's: the devices' client TLS
 * handshakes keep the calling process's event loop busy, and a probe on that loop would count its
 * own wait as the server's latency. The thread runs plain JavaScript (fetch), nothing of ours.
 */
import { Worker } from 'node:worker_threads';

const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, authorization, everyMs } = workerData;
let running = true;
parentPort.on('message', () => (running = false));
(async () => {
  const latencies = [];
  let failures = 0;
  while (running) {
    const started = performance.now();
    try {
      const response = await fetch(url, { headers: { authorization } });
      await response.text();
      if (response.ok) latencies.push(performance.now() - started);
      else failures++;
    } catch {
      failures++;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  parentPort.postMessage({ latencies, failures });
})();
`;

export interface AdminProbe {
  /** Stops the probe; its latencies (ms, answered calls) and failed calls. */
  stop(): Promise<{ latencies: number[]; failures: number }>;
}

export function adminProbeThread(url: string, apiKey: string, everyMs: number): AdminProbe {
  const worker = new Worker(THREAD, { eval: true, workerData: { url, authorization: `Bearer ${apiKey}`, everyMs } });
  const result = new Promise<{ latencies: number[]; failures: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const figures = await result;
      await worker.terminate();
      return figures;
    },
  };
}
