/** A long-running loop of a context's own (webhook delivery), started and stopped with the process (handlers.ts). */
export interface BackgroundService {
  start(): void;
  stop(): Promise<void>;
}
