// Worker thread that performs the blocking k6/http calls (http.get, http.post, ...) for the main thread. Runs in Node.
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { performRequest, type RawRequest } from './http-client';

const { port, flag } = workerData as { port: MessagePort; flag: SharedArrayBuffer };
const signal = new Int32Array(flag);

port.on('message', (req: RawRequest) => {
  void performRequest(req).then((res) => {
    port.postMessage(res);
    Atomics.store(signal, 0, 1);
    Atomics.notify(signal, 0);
  });
});
parentPort?.postMessage('ready');
