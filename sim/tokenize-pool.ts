// Counts prompt tokens for the simulator in a pool of worker threads, with a cache for repeated texts.
// Runs in Node (main thread).
//
// Tokenizing takes about 1 s per 300K tokens here, so it never runs on the engine's event loop.
// Prompts of the suite differ only in their first line, so a text is split after that line (at a cut
// where the Qwen3 pre-tokenizer cannot merge across, see safeCut) and the long rest is cached.

import { Worker } from 'node:worker_threads';
import { renderChatMl, type ChatMessage } from '../lib/chat-template';
import { chainedBlockHashes } from './kv-cache';
import type { CountJob, CountReply } from './tokenize-worker';

const EMPTY: Tokens = { count: 0, ids: new Uint32Array(0) };

/** Texts shorter than this are counted whole (splitting buys nothing). */
const SPLIT_MIN_CHARS = 4096;
const CACHE_ENTRIES = 256;
/** The cache keeps texts as keys: cap their total size (UTF-16 code units, about 2 bytes each). */
const CACHE_CHARS = 32 * 1024 * 1024;

/**
 * Index just after a newline at or after `from` such that count(text) = count(head) + count(tail):
 * the next character must not be whitespace (Qwen's pre-tokenizer groups runs of whitespace and newlines),
 * or -1 when there is none.
 */
export function safeCut(text: string, from: number): number {
  let i = text.indexOf('\n', from);
  while (i >= 0 && i + 1 < text.length) {
    const next = text.charCodeAt(i + 1);
    const prev = i > 0 ? text.charCodeAt(i - 1) : 0;
    // Next must start a new pre-token; prev must not be a newline/whitespace run that would include this \n.
    if (!isSpace(next) && !isSpace(prev)) return i + 1;
    i = text.indexOf('\n', i + 1);
  }
  return -1;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12 || c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a);
}

/** Where the part of a prompt that varies per request ends: after the first line of the last user turn. */
export function splitPoint(text: string): number {
  if (text.length < SPLIT_MIN_CHARS) return -1;
  const marker = '<|im_start|>user\n';
  const at = text.lastIndexOf(marker);
  const from = at >= 0 ? at + marker.length : 0;
  const cut = safeCut(text, from);
  return cut > 0 && text.length - cut >= SPLIT_MIN_CHARS ? cut : -1;
}

/** Prompt tokens of a request: the count and, when asked for, the chained hashes of its full KV blocks. */
export interface PromptTokens {
  readonly count: number;
  /** Hash of block i covers tokens 0..(i+1)*blockSize (chained); empty when blockSize was 0. */
  readonly blockHashes: number[];
}

interface Tokens {
  readonly count: number;
  readonly ids: Uint32Array;
}

interface Pending {
  resolve(r: Tokens): void;
  reject(e: Error): void;
}
interface PoolWorker {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  load: number;
}

export class TokenizePool {
  private readonly workers: PoolWorker[] = [];
  private readonly pending = new Map<number, Pending & { w: PoolWorker; chars: number }>();
  private readonly cache = new Map<string, Tokens>();
  private cacheChars = 0;
  private readonly inflight = new Map<string, Promise<Tokens>>();
  private nextJob = 1;
  private closed = false;

  constructor(size: number) {
    for (let i = 0; i < Math.max(1, size); i++) this.workers.push(this.spawn());
  }

  private spawn(): PoolWorker {
    const worker = new Worker(new URL('./tokenize-worker.mjs', import.meta.url));
    worker.unref();
    let markReady!: () => void;
    let markFailed!: (e: Error) => void;
    const ready = new Promise<void>((res, rej) => {
      markReady = res;
      markFailed = rej;
    });
    ready.catch(() => undefined);
    const pw: PoolWorker = { worker, ready, load: 0 };
    worker.on('message', (m: CountReply) => {
      if ('ready' in m) {
        markReady();
        return;
      }
      const p = this.pending.get(m.job);
      if (!p) return;
      this.pending.delete(m.job);
      pw.load -= p.chars;
      if ('error' in m) p.reject(new Error(`tokenizer failed: ${m.error}`));
      else p.resolve({ count: m.count, ids: m.ids });
    });
    worker.on('error', (e) => {
      markFailed(e);
      for (const [job, p] of this.pending) {
        if (p.w !== pw) continue;
        this.pending.delete(job);
        p.reject(new Error(`tokenizer worker failed: ${e.message}`));
      }
    });
    return pw;
  }

  /** Resolves once every worker has loaded the tokenizer. */
  async ready(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.ready));
  }

  /** Prompt tokens of a chat request: its ChatML rendering (lib/chat-template.ts), as countChat does. */
  async countChat(messages: readonly ChatMessage[]): Promise<number> {
    return (await this.tokenizeText(renderChatMl(messages), 0)).count;
  }

  /** Tokens of a text (completions prompt); the varying first line and the rest are counted and cached apart. */
  async countText(text: string): Promise<number> {
    return (await this.tokenizeText(text, 0)).count;
  }

  /** Chat prompt tokens and, with blockSize > 0, the prompt's chained block hashes for the prefix cache. */
  tokenizeChat(messages: readonly ChatMessage[], blockSize: number): Promise<PromptTokens> {
    return this.tokenizeText(renderChatMl(messages), blockSize);
  }

  /**
   * Tokens of a text and, with blockSize > 0, chained hashes of its full blocks of token ids. The text
   * is tokenized as head (up to the first line of the last user turn) and tail (cached with its ids);
   * the cut is where the pre-tokenizer cannot merge, so the ids of the whole are head ids + tail ids and
   * the hashes are those of the whole prompt's blocks (hashed on this thread: about 1 ms per 256K tokens).
   */
  async tokenizeText(text: string, blockSize: number): Promise<PromptTokens> {
    const cut = splitPoint(text);
    const parts =
      cut < 0
        ? [await this.tokensCached(text)]
        : await Promise.all([this.tokensRaw(text.slice(0, cut)), this.tokensCached(text.slice(cut))]);
    const count = parts.reduce((n, p) => n + p.count, 0);
    return { count, blockHashes: blockSize > 0 ? chainedBlockHashes(parts.map((p) => p.ids), blockSize) : [] };
  }

  private tokensCached(text: string): Promise<Tokens> {
    const hit = this.cache.get(text);
    if (hit !== undefined) {
      // Refresh LRU position.
      this.cache.delete(text);
      this.cache.set(text, hit);
      return Promise.resolve(hit);
    }
    const running = this.inflight.get(text);
    if (running) return running;
    const p = this.tokensRaw(text).then(
      (t) => {
        this.inflight.delete(text);
        // Size in UTF-16 code units: the text, plus its ids (4 bytes each = 2 units).
        const size = text.length + 2 * t.ids.length;
        if (size <= CACHE_CHARS && !this.cache.has(text)) {
          this.cache.set(text, t);
          this.cacheChars += size;
          // Evict least recently used entries beyond the entry and size budgets.
          while (this.cache.size > CACHE_ENTRIES || this.cacheChars > CACHE_CHARS) {
            const [oldest, v] = this.cache.entries().next().value!;
            this.cache.delete(oldest);
            this.cacheChars -= oldest.length + 2 * v.ids.length;
          }
        }
        return t;
      },
      (e: unknown) => {
        this.inflight.delete(text);
        throw e;
      },
    );
    this.inflight.set(text, p);
    return p;
  }

  /** Token ids of a text, for /tokenize (not cached). */
  async encode(text: string): Promise<number[]> {
    if (text.length === 0) return [];
    return Array.from((await this.run(text)).ids);
  }

  private async tokensRaw(text: string): Promise<Tokens> {
    if (text.length === 0) return EMPTY;
    return this.run(text);
  }

  private run(text: string): Promise<Tokens> {
    if (this.closed) return Promise.reject(new Error('tokenizer pool is closed'));
    // Least-loaded worker by characters queued.
    let w = this.workers[0]!;
    for (const c of this.workers) if (c.load < w.load) w = c;
    const job = this.nextJob++;
    w.load += text.length;
    return new Promise((resolve, reject) => {
      this.pending.set(job, { resolve, reject, w, chars: text.length });
      w.worker.postMessage({ job, text } satisfies CountJob);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const [job, p] of this.pending) {
      this.pending.delete(job);
      p.reject(new Error('tokenizer pool closed'));
    }
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }
}
