// Runs the engine in virtual time (no timers, no HTTP) for a batch of simultaneous requests: what the model predicts. Runs in Node, pure.
//
// Used by the fidelity bench (to show the model's own prediction next to what a client measured)
// and by unit tests; the HTTP server should reproduce these numbers within timer and network noise.

import { Engine } from './engine';
import { chainedBlockHashes } from './kv-cache';
import type { Profile } from './profiles';

export interface VirtualRequestResult {
  readonly ttftMs: number;
  readonly e2eMs: number;
  readonly outputTokens: number;
  /** (output - 1) / (e2e - ttft), tokens per second (docs/architecture.md, per-user decode speed). */
  readonly decodeTokensPerSecond: number;
}

export interface VirtualRunResult {
  readonly requests: VirtualRequestResult[];
  /** Wall time from the first arrival to the last token, ms. */
  readonly wallMs: number;
  /** Output tokens / wall time, tokens per second. */
  readonly systemTokensPerSecond: number;
  readonly preemptions: number;
}

export interface VirtualRunOptions {
  /** Prompt tokens every request has in common at its start (PROMPT_MODE=shared-prefix); default 0: unique prompts. */
  readonly sharedPrefixTokens?: number;
  /** Prefix caching in the engine (default true, as the server). */
  readonly prefixCaching?: boolean;
}

/**
 * N requests arriving together at t=0, each of promptTokens with exactly outputTokens generated.
 * Prompts are unique (no prefix-cache hits, as the suite's per-request first line makes them) unless
 * sharedPrefixTokens says how many leading tokens they share; the engine models the server's cache.
 */
export function runVirtualBatch(profile: Profile, promptTokens: number, outputTokens: number, concurrency: number, options: VirtualRunOptions = {}): VirtualRunResult {
  const caching = options.prefixCaching ?? true;
  const engine = new Engine(profile, { prefixCaching: caching });
  const overhead = profile.hardware.requestOverheadMs;
  const shared = Math.min(options.sharedPrefixTokens ?? 0, promptTokens);
  const bs = profile.scheduler.blockSize;
  for (let i = 0; i < concurrency; i++) {
    // Synthetic token ids, hashed as the server hashes real ones: the shared prefix the same for all,
    // the rest unique to the request (so a preempted request finds its own blocks again, as over HTTP).
    let blockHashes: number[] | undefined;
    if (caching) {
      const ids = new Uint32Array(promptTokens);
      ids.fill(1 + i, shared);
      blockHashes = chainedBlockHashes([ids], bs);
    }
    engine.add({ id: `r${i}`, promptTokens, outputTokens, finishReason: 'length', arrivalMs: 0, queuedMs: overhead, blockHashes });
  }
  const first = new Map<string, number>();
  const requests: VirtualRequestResult[] = [];
  let now = overhead;
  while (engine.hasWork()) {
    const plan = engine.beginStep(now);
    if (!plan) throw new Error('engine stalled with work pending');
    const res = engine.endStep();
    now = res.endMs;
    for (const t of res.tokens) if (t.index === 1) first.set(t.id, res.endMs);
    for (const f of res.finished) {
      const ttft = first.get(f.id)! - f.arrivalMs;
      const e2e = f.endMs - f.arrivalMs;
      requests.push({
        ttftMs: ttft,
        e2eMs: e2e,
        outputTokens: f.generatedTokens,
        decodeTokensPerSecond: f.generatedTokens > 1 ? ((f.generatedTokens - 1) * 1000) / (e2e - ttft) : 0,
      });
    }
  }
  const total = requests.reduce((s, r) => s + r.outputTokens, 0);
  return { requests, wallMs: now, systemTokensPerSecond: (total * 1000) / now, preemptions: engine.preemptionsTotal };
}

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length;
}
