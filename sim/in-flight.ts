// What a simulator request is while the batcher runs it: a generation's streamed response (sim/request-output.ts) or
// an embeddings or rerank answer, sent whole once its prefill is done. Runs in Node.

import type { ServerResponse } from 'node:http';
import type { TokenEvent } from './batcher';
import { sendJson } from './http-exchange';

/** What the scheduler's tokens go to: a generation's response, or an embed answer. */
export interface InFlight {
  readonly promptTokens: number;
  onToken(ev: TokenEvent): void;
  clientGone(): void;
}

/** An embeddings or rerank answer: sent whole once the batcher has run its prefill (its one token). */
export class EmbedAnswer implements InFlight {
  done = false;

  constructor(
    private readonly res: ServerResponse,
    readonly promptTokens: number,
    private readonly body: () => unknown,
    /** Called as the answer is written, its body built (the ground truth's end of the request). */
    private readonly onSent: () => void = () => {},
  ) {}

  onToken(): void {
    if (this.done) return;
    this.done = true;
    const body = this.body();
    // Stamped before the write, as a stream's tokens are (sim/request-output.ts): after it, a loaded machine could run
    // the client's read first, and the record showed an end 20 ms after the client had the answer (CI, 2026-12-07).
    this.onSent();
    sendJson(this.res, 200, body);
  }

  clientGone(): void {
    this.done = true;
  }
}
