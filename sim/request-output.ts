// Writes one request's response as tokens arrive from the scheduler. Runs in Node.
// It writes SSE chunks (vLLM or SGLang style) or a JSON body, with injected faults.

import type { ServerResponse } from 'node:http';
import type { TokenEvent } from './batcher';
import { faultPoint, type Fault } from './faults';
import { epochMs, type GroundTruthRecord } from './ground-truth';
import { makeUsage, type StreamIdentity, type Usage } from './sse';
import type { StreamWriter, TokenKind } from './stream-writer';
import { streamWriter } from './stream-writers';
import { TokenText } from './text';

export interface OutputOptions {
  readonly res: ServerResponse;
  readonly identity: StreamIdentity;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  readonly promptTokens: number;
  /** Tokens to send (thinking and answer); the stream ends with finishReason after them. */
  readonly contentTokens: number;
  /** How many of the first tokens are thinking (a reasoning model, --reasoning-tokens); 0 for none. */
  readonly reasoningTokens: number;
  readonly seed: number;
  /** Tokens per chunk (SGLang stream interval); 1 for vLLM. */
  readonly streamInterval: number;
  readonly faults: readonly Fault[];
  readonly record: GroundTruthRecord | null;
  /** Called when a fault ends the response early, so the scheduler frees the request. */
  readonly onCut: () => void;
}

export class RequestOutput {
  private readonly text: TokenText;
  private readonly queue: string[] = [];
  private finish: 'length' | 'stop' | null = null;
  private sent = 0;
  private opened = false;
  private readonly body = { reasoning: '', content: '' };
  private readonly writer: StreamWriter;
  private stalledUntil = 0;
  private stallTimer: NodeJS.Timeout | null = null;
  /** Prompt tokens the prefix cache served (from the first token's event); 0 until then and in fixed timing. */
  private cachedTokens = 0;
  private readonly fired = new Set<Fault>();
  /** True once the response is over (completed, cut by a fault, or the client left). */
  done = false;

  constructor(private readonly o: OutputOptions) {
    this.text = new TokenText(o.seed);
    this.writer = streamWriter(o.identity);
  }

  /** The usage as it stands (the cached tokens are known from the first token on). */
  private usage(): Usage {
    return makeUsage(this.o.promptTokens, this.o.contentTokens, this.cachedTokens, this.thinking());
  }

  /** Tokens of the answer that are thinking: the first reasoningTokens, at most all of them. */
  private thinking(): number {
    return Math.min(this.o.reasoningTokens, this.o.contentTokens);
  }

  /** The kind of the next token to send. */
  private nextKind(): TokenKind {
    return this.sent < this.thinking() ? 'reasoning' : 'content';
  }

  get promptTokens(): number {
    return this.o.promptTokens;
  }

  /** A token sampled by the scheduler: tokens beyond contentTokens carry no text (a stop ended the content). */
  onToken(ev: TokenEvent): void {
    if (this.done) return;
    if (ev.cachedTokens !== undefined) {
      this.cachedTokens = ev.cachedTokens;
      if (this.o.record) this.o.record.cachedTokens = ev.cachedTokens;
    }
    if (ev.index <= this.o.contentTokens) this.queue.push(this.text.token());
    if (ev.finished) this.finish = ev.finished;
    this.drain();
  }

  /** The client went away: nothing more is written. */
  clientGone(): void {
    if (this.done) return;
    this.done = true;
    this.clearStall();
    if (this.o.record) {
      this.o.record.outcome = 'aborted';
      this.o.record.endEpochMs = epochMs();
    }
  }

  private has(kind: Fault['kind']): boolean {
    return this.o.faults.some((f) => f.kind === kind);
  }

  private drain(): void {
    const res = this.o.res;
    while (!this.done && (this.queue.length > 0 || this.finish !== null)) {
      if (this.o.stream && !this.opened) {
        const opening = this.writer.open(this.usage());
        if (opening !== '') res.write(opening);
        this.opened = true;
      }
      if (this.fireFaults()) return;
      const stallLeft = this.stalledUntil - performance.now();
      if (stallLeft > 0) {
        // Timers may fire a fraction of a millisecond early: re-arm for what is left of the stall.
        if (!this.stallTimer) this.armStall(stallLeft);
        return;
      }
      if (this.queue.length === 0) {
        this.end();
        return;
      }
      const final = this.finish !== null;
      if (!final && this.queue.length < this.o.streamInterval) return;
      // vLLM flavour: one chunk per token. SGLang flavour: everything pending goes in one chunk, so a
      // stream that fell behind (a stall, a busy server) catches up in multi-token chunks as SGLang's does.
      let take = this.o.identity.flavour === 'sglang' ? this.queue.length : 1;
      // A chunk holds tokens of one kind: thinking ends in a chunk of its own.
      const kind = this.nextKind();
      if (kind === 'reasoning') take = Math.min(take, this.thinking() - this.sent);
      // Stop at the next fault point so the fault strikes after exactly `after` tokens.
      for (const f of this.o.faults) {
        const point = faultPoint(f, this.o.contentTokens);
        if (!this.fired.has(f) && point > this.sent) take = Math.min(take, point - this.sent);
      }
      const text = this.queue.splice(0, take).join('');
      const last = final && this.queue.length === 0;
      // Stamped before the write: a client cannot read a token before the server's record of it, however long this
      // process is kept from running between the write and the next line (a busy machine kept it for milliseconds).
      const writtenEpochMs = epochMs();
      if (this.o.stream) {
        const finishHere = last && this.writer.finishOnLastToken ? this.finish : null;
        res.write(this.writer.delta(text, kind, finishHere));
      } else {
        this.body[kind] += text;
      }
      this.sent += take;
      if (this.o.record) for (let i = 0; i < take; i++) this.o.record.tokenEpochMs.push(writtenEpochMs);
      if (last) {
        this.end(this.writer.finishOnLastToken);
        return;
      }
    }
  }

  /** Fires the faults due at the current point; true when the response is over. */
  private fireFaults(): boolean {
    for (const f of this.o.faults) {
      if (
        this.fired.has(f) ||
        f.kind === 'error-status' ||
        f.kind === 'json-error' ||
        f.kind === 'no-done' ||
        f.kind === 'no-usage'
      )
        continue;
      if (faultPoint(f, this.o.contentTokens) !== this.sent) continue;
      this.fired.add(f);
      switch (f.kind) {
        case 'reset-mid-stream':
          this.cut();
          // Close the connection without ending the chunked body: the client sees the stream cut. A FIN after
          // the data already written (not an RST, which would make the client's kernel drop unread chunks).
          this.o.res.socket?.end();
          return true;
        case 'error-in-stream':
          if (!this.o.stream) break;
          this.o.res.end(this.writer.error('Injected fault: error-in-stream'));
          this.cut();
          return true;
        case 'error-event':
          if (!this.o.stream) break;
          this.o.res.end(
            `event: error\ndata: ` +
            JSON.stringify({
              error: { message: 'Injected fault: error-event', type: 'InternalServerError', code: 500 },
            }) +
            '\n\n',
          );
          this.cut();
          return true;
        case 'malformed-chunk':
          if (this.o.stream) this.o.res.write('data: {"id":"malformed","choices":[{"index":0,"delta":{"content":\n\n');
          break;
        case 'stall':
          this.stalledUntil = performance.now() + f.stallMs;
          this.armStall(f.stallMs);
          break;
      }
    }
    return false;
  }

  private armStall(ms: number): void {
    this.clearStall();
    this.stallTimer = setTimeout(() => {
      this.stallTimer = null;
      this.drain();
    }, Math.ceil(ms));
  }

  private cut(): void {
    this.done = true;
    this.clearStall();
    if (this.o.record) {
      this.o.record.outcome = 'faulted';
      this.o.record.endEpochMs = epochMs();
    }
    this.o.onCut();
  }

  private clearStall(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = null;
  }

  /** What closes the stream (finish, usage, the closing event), or the JSON body. */
  private end(finishAlreadySent = false): void {
    const res = this.o.res;
    const finish = this.finish ?? 'length';
    const usage = this.usage();
    this.done = true;
    if (this.o.record) {
      this.o.record.finishReason = finish;
      this.o.record.outcome = this.o.faults.length > 0 ? 'faulted' : 'completed';
      // Before the last write, as each token's (drain): the client reads the end after the server's record of it.
      this.o.record.endEpochMs = epochMs();
    }
    if (this.o.stream) {
      res.end(this.writer.close({
        finish, finishSent: finishAlreadySent, usage: this.o.includeUsage && !this.has('no-usage') ? usage : null,
        closed: !this.has('no-done'),
      }));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(this.writer.body(this.body, finish, usage));
    }
  }
}
