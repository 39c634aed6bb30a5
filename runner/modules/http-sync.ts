// Blocking HTTP for k6/http's synchronous calls: the request runs in a worker while this thread waits, as k6 blocks the VU. Runs in Node.
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { buildSync } from 'esbuild';
import type { RawRequest, RawResponse } from './http-client';

let worker: { port: MessagePort; signal: Int32Array; worker: Worker } | null = null;

/** Boots the worker ahead of the first blocking call (k6/http was imported), so the call does not pay for it. */
export function prepareSyncWorker(): void {
  worker ??= start();
}

function start(): NonNullable<typeof worker> {
  const { port1, port2 } = new MessageChannel();
  const flag = new SharedArrayBuffer(4);
  // Workers do not inherit tsx's loader: bundle the worker's TypeScript to one CommonJS string.
  const code = buildSync({
    entryPoints: [fileURLToPath(new URL('./http-sync-worker.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'silent',
  }).outputFiles[0]!.text;
  const w = new Worker(code, { eval: true, workerData: { port: port2, flag }, transferList: [port2] });
  w.unref();
  port1.unref();
  return { port: port1, signal: new Int32Array(flag), worker: w };
}

/**
 * Sends the request and blocks this thread until the worker has the response. Like k6's blocking
 * calls, this stalls every other VU of the process while it waits: scripts should prefer
 * http.asyncRequest, and the suite does.
 */
export function requestSync(req: RawRequest): RawResponse {
  worker ??= start();
  Atomics.store(worker.signal, 0, 0);
  worker.port.postMessage(req);
  const deadline = req.timeoutMs + 5_000;
  const r = Atomics.wait(worker.signal, 0, 0, deadline);
  if (r === 'timed-out') throw new Error(`synchronous request to ${req.url} did not finish in ${deadline} ms`);
  const msg = receiveMessageOnPort(worker.port);
  if (!msg) throw new Error('synchronous request: no response from the worker');
  return msg.message as RawResponse;
}

export async function stopSyncWorker(): Promise<void> {
  if (worker) {
    await worker.worker.terminate();
    worker = null;
  }
}
