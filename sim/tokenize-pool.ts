// Counts prompt tokens for the simulator in a pool of worker threads, with a cache for repeated texts.
// Runs in Node (main thread).
//
// Tokenizing takes about 1 s per 300K tokens here, so it never runs on the batcher's event loop.
// A chat prompt is tokenized message by message: ChatML puts a special token between messages, which
// the tokenizer splits on before anything else, so the ids of the whole are the messages' ids one after
// another, and a conversation's earlier turns (sent again with every turn) come from the cache. Prompts
// of the suite differ only in their first line, so a long message is split after that line (at a cut
// where the Qwen3 pre-tokenizer cannot merge across, see safeCut) and the long rest is cached.

import { Worker } from 'node:worker_threads';
import { renderChatMl, type ChatMessage } from '../lib/chat-template';
import { chainedBlockHashes } from './kv-cache';
import type { CountJob, CountReply } from './tokenize-worker';
import { currentBundle } from '../node/node-programs';

const EMPTY: Tokens = { count: 0, ids: new Uint32Array(0) };

/**
 * Queued characters on the least-loaded worker past which the pool starts another (up to its size): about a second
 * of tokenizing, what a new worker takes to load the tokenizer (1.1 CPU-seconds here). Most runs never queue that
 * much, and a simulator started for a short run should not pay for a worker it never uses.
 */
const GROW_AT_CHARS = 1_000_000;

/** Texts shorter than this are counted whole (splitting buys nothing). */
const SPLIT_MIN_CHARS = 4096;
/** Entries of the cache: enough for the histories of a few hundred conversations (a few messages each). */
const CACHE_ENTRIES = 8192;
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
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12 || c === 0xa0 || c === 0x3000 ||
    (c >= 0x2000 && c <= 0x200a);
}

const MESSAGE_START = '<|im_start|>';

/**
 * A prompt in the pieces it is tokenized in: each ChatML message from its <|im_start|> (text before the first
 * one is a piece too), so count(text) = the pieces' counts summed; a text without messages is one piece.
 */
export function messagePieces(text: string): string[] {
  const pieces: string[] = [];
  let from = 0;
  for (let at = text.indexOf(MESSAGE_START, 1); at > 0; at = text.indexOf(MESSAGE_START, at + 1)) {
    pieces.push(text.slice(from, at));
    from = at;
  }
  pieces.push(text.slice(from));
  return pieces.filter((p) => p !== '');
}

/**
 * Where a long message (a piece of messagePieces) splits into its varying first line and its cached rest; -1 to keep
 * it whole.
 */
export function splitPoint(piece: string): number {
  if (piece.length < SPLIT_MIN_CHARS) return -1;
  // Past the role line of a message ("<|im_start|>user\n"): the content's first line is what varies.
  const from = piece.startsWith(MESSAGE_START) ? piece.indexOf('\n') + 1 : 0;
  const cut = safeCut(piece, from);
  return cut > 0 && piece.length - cut >= SPLIT_MIN_CHARS ? cut : -1;
}

/** Prompt tokens of a request: the count and, when asked for, the chained hashes of its full KV blocks. */
export interface PromptTokens {
  readonly count: number;
  /** Hash of block i covers tokens 0..(i+1)*blockSize (chained); empty when blockSize was 0. */
  readonly blockHashes: number[];
  /** The prompt's token ids, in pieces (their concatenation): for hashing the prompt with its response. */
  readonly ids: readonly Uint32Array[];
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

  private readonly size: number;

  /** Starts one worker; more, up to `size`, as the queue grows (GROW_AT_CHARS). */
  constructor(size: number) {
    this.size = Math.max(1, size);
    this.workers.push(this.spawn());
  }

  private spawn(): PoolWorker {
    // The bundled worker when current (node/node-programs.ts), else its TypeScript through tsx; the path from the
    // repository, as this module also runs bundled, from dist-node/.
    const source = currentBundle('tokenize-worker') ?? new URL('../sim/tokenize-worker.mjs', import.meta.url);
    const worker = new Worker(source);
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

  /** Worker threads started so far. */
  get workerCount(): number {
    return this.workers.length;
  }

  /** Resolves once every worker started so far has loaded the tokenizer. */
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
   * Tokens of a text and, with blockSize > 0, chained hashes of its full blocks of token ids. The text is
   * tokenized message by message (messagePieces); a long message as head (its first line, with the role line)
   * and tail (cached with its ids), cut where the pre-tokenizer cannot merge; a short one whole, cached. So the ids
   * of the whole are the pieces' ids in order and the hashes are those of the whole prompt's blocks (hashed on this
   * thread: about 1 ms per 256K tokens).
   */
  async tokenizeText(text: string, blockSize: number): Promise<PromptTokens> {
    const jobs = messagePieces(text).flatMap((piece) => {
      const cut = splitPoint(piece);
      return cut < 0
        ? [this.tokensCached(piece)]
        : [this.tokensRaw(piece.slice(0, cut)), this.tokensCached(piece.slice(cut))];
    });
    const parts = await Promise.all(jobs);
    const count = parts.reduce((n, p) => n + p.count, 0);
    const ids = parts.map((p) => p.ids);
    return { count, blockHashes: blockSize > 0 ? chainedBlockHashes(ids, blockSize) : [], ids };
  }

  /**
   * The token id of each word as generated text carries it (" word"), in order; throws unless every word is one
   * token (sim/text.ts promises it), since the prefix cache hashes responses with these ids.
   */
  async wordIds(words: readonly string[]): Promise<Uint32Array> {
    const ids = (await this.run(words.map((w) => ` ${w}`).join(''))).ids;
    if (ids.length !== words.length) {
      throw new Error(`${words.length} words tokenize to ${ids.length} tokens, not one each`);
    }
    return ids;
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
    // Least-loaded worker by characters queued; a new one when even that one has a second's work queued.
    let w = this.workers[0]!;
    for (const c of this.workers) if (c.load < w.load) w = c;
    if (w.load >= GROW_AT_CHARS && this.workers.length < this.size) {
      w = this.spawn();
      this.workers.push(w);
    }
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
