// Worker thread of the tokenizer pool: counts Qwen3 tokens of texts off the engine's event loop. Runs in Node (worker thread).

import { parentPort } from 'node:worker_threads';
import { loadQwen3Tokenizer } from '../tokenizer/qwen3';

/** Request: count the tokens of a text (ChatML already rendered for chat requests). */
export interface CountJob {
  readonly job: number;
  readonly text: string;
  /** Also return the token ids (for /tokenize). */
  readonly ids: boolean;
}

export type CountReply =
  | { readonly job: number; readonly count: number; readonly ids: number[] | null }
  | { readonly job: number; readonly error: string }
  | { readonly ready: true };

const port = parentPort;
if (!port) throw new Error('tokenize-worker must run in a worker thread');
const tokenizer = loadQwen3Tokenizer();
port.postMessage({ ready: true } satisfies CountReply);
port.on('message', (msg: CountJob) => {
  try {
    if (msg.ids) {
      const ids = tokenizer.encode(msg.text);
      port.postMessage({ job: msg.job, count: ids.length, ids } satisfies CountReply);
    } else {
      port.postMessage({ job: msg.job, count: tokenizer.countText(msg.text), ids: null } satisfies CountReply);
    }
  } catch (e) {
    port.postMessage({ job: msg.job, error: (e as Error).message } satisfies CountReply);
  }
});
