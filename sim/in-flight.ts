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
    /** Called once the answer is written (the ground truth's end of the request). */
    private readonly onSent: () => void = () => {},
  ) {}

  onToken(): void {
    if (this.done) return;
    this.done = true;
    sendJson(this.res, 200, this.body());
    this.onSent();
  }

  clientGone(): void {
    this.done = true;
  }
}
