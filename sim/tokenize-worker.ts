// Worker thread of the tokenizer pool: counts Qwen3 tokens of texts off the batcher's event loop.
// Runs in Node (worker thread).

import { parentPort } from 'node:worker_threads';
import { loadQwen3Tokenizer } from '../tokenizer/qwen3';

/** Request: tokenize a text (ChatML already rendered for chat requests). */
export interface CountJob {
  readonly job: number;
  readonly text: string;
}

/**
 * The token ids travel as a transferred Uint32Array (no copy): counting already encodes the text, so
 * the ids cost the worker one typed-array fill; the main thread hashes them into prefix-cache blocks.
 */
export type CountReply =
  | { readonly job: number; readonly count: number; readonly ids: Uint32Array }
  | { readonly job: number; readonly error: string }
  | { readonly ready: true };

const port = parentPort;
if (!port) throw new Error('tokenize-worker must run in a worker thread');
const tokenizer = loadQwen3Tokenizer();
port.postMessage({ ready: true } satisfies CountReply);
port.on('message', (msg: CountJob) => {
  try {
    const ids = Uint32Array.from(tokenizer.encode(msg.text));
    port.postMessage({ job: msg.job, count: ids.length, ids } satisfies CountReply, [ids.buffer]);
  } catch (e) {
    port.postMessage({ job: msg.job, error: (e as Error).message } satisfies CountReply);
  }
});
