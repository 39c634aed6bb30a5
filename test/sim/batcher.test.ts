// Unit tests of the batcher's step loop on a fake clock: chunked prefill, decode, admission, preemption, abort.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { Batcher, type BatchRequest, type FinishedEvent, type TokenEvent } from '../../sim/batcher';
import { chainedBlockHashes } from '../../sim/kv-cache';
import { findProfile, parseProfile } from '../../sim/profiles';
import { stepTime } from '../../sim/step-time';
import { runVirtualBatch } from '../../sim/virtual-run';

const A = findProfile('A')!;

function req(id: string, promptTokens: number, outputTokens: number, at = 0): BatchRequest {
  return { id, promptTokens, outputTokens, finishReason: 'length', arrivalMs: at, queuedMs: at };
}

/** Runs the batcher to completion on virtual time, collecting every event and step. */
function drain(batcher: Batcher, startMs = 0) {
  const tokens: (TokenEvent & { atMs: number })[] = [];
  const finished: FinishedEvent[] = [];
  const steps: { sequences: number; tokens: number; preempted: number; durationMs: number }[] = [];
  let now = startMs;
  while (batcher.hasWork()) {
    const plan = batcher.beginStep(now);
    if (!plan) throw new Error('stalled');
    steps.push({
      sequences: plan.sequences, tokens: plan.tokens, preempted: plan.preempted, durationMs: plan.endMs - plan.startMs,
    });
    const r = batcher.endStep();
    now = r.endMs;
    for (const t of r.tokens) tokens.push({ ...t, atMs: now });
    finished.push(...r.finished);
  }
  return { tokens, finished, steps, endMs: now };
}

describe('Batcher: chunked prefill, published figures, batching and admission', () => {
  it('prefills a 20000-token prompt in chunks of 8192, 8192, 3616, then decodes one token per step', () => {
    const e = new Batcher(A);
    e.add(req('a', 20_000, 3));
    const { tokens, steps, finished } = drain(e);
    expect(steps.map((s) => s.tokens)).toEqual([8192, 8192, 3616, 1, 1]);
    expect(tokens.map((t) => t.index)).toEqual([1, 2, 3]);
    expect(tokens[2]!.finished).toBe('length');
    // First token at the end of the third prefill chunk.
    const prefill = [0, 8192, 16384].map(
      (p, i) => stepTime(A.hardware, [{ newTokens: i < 2 ? 8192 : 3616, cachedTokens: p }]).totalMs,
    );
    expect(tokens[0]!.atMs).toBeCloseTo(prefill[0]! + prefill[1]! + prefill[2]!, 6);
    expect(finished[0]!.generatedTokens).toBe(3);
    expect(e.kv.usedBlocks).toBe(0);
  });

  it('gives the published single-request figures of profile A within the fit tolerance (5%): decode 164.9 tok/s ' +
    'and TTFT 76 ms at 1K, decode 149 tok/s at 8K', () => {
    const at1k = runVirtualBatch(A, 1024, 256, 1).requests[0]!;
    expect(Math.abs(at1k.decodeTokensPerSecond! / 164.9 - 1)).toBeLessThan(0.05);
    expect(Math.abs(at1k.ttftMs / 76 - 1)).toBeLessThan(0.05);
    const at8k = runVirtualBatch(A, 8192, 256, 1).requests[0]!;
    expect(Math.abs(at8k.decodeTokensPerSecond! / 149 - 1)).toBeLessThan(0.05);
  });

  it('shares the chunk budget: decode tokens of running requests ride along with a new prefill', () => {
    const e = new Batcher(A);
    e.add(req('a', 100, 10));
    let plan = e.beginStep(0)!;
    e.endStep();
    e.add(req('b', 10_000, 5));
    plan = e.beginStep(plan.endMs)!;
    // a decodes 1 token, b gets the remaining 8191 of the budget.
    expect(plan.sequences).toBe(2);
    expect(plan.tokens).toBe(8192);
    e.endStep();
  });

  it('caps running sequences at max_num_seqs', () => {
    const small = parseProfile({ scheduler: { maxNumSeqs: 2 } }, 'test');
    const e = new Batcher(small);
    for (let i = 0; i < 3; i++) e.add(req(`r${i}`, 10, 2));
    const plan = e.beginStep(0)!;
    expect(plan.sequences).toBe(2);
    expect(e.waitingCount).toBe(1);
    e.endStep();
  });

  it('admits a waiting request only when its whole sequence fits in free blocks', () => {
    // 8 blocks of 16 tokens = 128 tokens of KV.
    const tiny = parseProfile({ scheduler: { kvCapacityTokens: 128, blockSize: 16 } }, 'test');
    const e = new Batcher(tiny);
    e.add(req('a', 64, 10)); // 4 blocks
    e.add(req('b', 80, 10)); // needs 5 blocks; only 4 free
    const plan = e.beginStep(0)!;
    expect(plan.sequences).toBe(1);
    expect(e.waitingCount).toBe(1);
    e.endStep();
  });
});

describe('Batcher under KV pressure: preemption, abort and requests that never fit', () => {
  it('preempts the newest running request when KV runs out, and both still finish with every token', () => {
    // 64 blocks x 16 = 1024 tokens; two sequences growing to 400 + 300 = 700 tokens each cannot both fit.
    const tiny = parseProfile({ scheduler: { kvCapacityTokens: 1024, blockSize: 16 } }, 'test');
    const e = new Batcher(tiny);
    e.add(req('old', 400, 300));
    e.add(req('new', 400, 300));
    const { finished, steps, tokens } = drain(e);
    expect(e.preemptionsTotal).toBeGreaterThan(0);
    expect(steps.some((s) => s.preempted > 0)).toBe(true);
    const byId = new Map(finished.map((f) => [f.id, f]));
    expect(byId.get('old')!.generatedTokens).toBe(300);
    expect(byId.get('new')!.generatedTokens).toBe(300);
    expect(byId.get('old')!.preemptions).toBe(0);
    expect(byId.get('new')!.preemptions).toBeGreaterThan(0);
    // Token indices of each request are 1..300 in order (a preempted request resumes, never repeats).
    const newIdx = tokens.filter((t) => t.id === 'new').map((t) => t.index);
    expect(newIdx).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(e.kv.usedBlocks).toBe(0);
  });

  it('a preempted request recomputes its prompt plus the tokens it had generated', () => {
    const tiny = parseProfile({ scheduler: { kvCapacityTokens: 1024, blockSize: 16 } }, 'test');
    const e = new Batcher(tiny);
    e.add(req('old', 400, 300));
    e.add(req('new', 400, 300));
    let now = 0;
    let recompute = 0;
    let preempted = false;
    while (e.hasWork()) {
      const plan = e.beginStep(now)!;
      if (plan.preempted > 0) preempted = true;
      // After the preemption, the step that admits 'new' again carries more than one token for it.
      if (preempted && plan.tokens > 1 && recompute === 0) recompute = plan.tokens;
      now = e.endStep().endMs;
    }
    expect(recompute).toBeGreaterThan(400);
  });

  it('abort frees the blocks at once and reports reason abort', () => {
    const e = new Batcher(A);
    e.add(req('a', 1000, 100));
    e.beginStep(0);
    const ev = e.abort('a', 5)!;
    expect(ev.reason).toBe('abort');
    expect(e.kv.usedBlocks).toBe(0);
    const r = e.endStep();
    expect(r.tokens).toEqual([]);
    expect(e.hasWork()).toBe(false);
    expect(e.abort('a', 6)).toBeUndefined();
  });

  it('refuses a request that can never fit in the KV cache', () => {
    const tiny = parseProfile({ scheduler: { kvCapacityTokens: 128 } }, 'test');
    expect(() => new Batcher(tiny).add(req('a', 200, 1))).toThrow(/cannot fit/);
  });
});

/** The chained block hashes of a prompt of n distinct token ids (shifted by salt), 16 tokens a block. */
const hashes = (n: number, salt = 0): number[] =>
  chainedBlockHashes([Uint32Array.from({ length: n }, (_, i) => i + salt)], 16);
/** A request whose prompt carries its block hashes, so the prefix cache can match it. */
const withHashes = (id: string, n: number, out: number, salt = 0): BatchRequest => ({
  ...req(id, n, out), blockHashes: hashes(n, salt),
});

describe('Batcher prefix cache: shared prefixes and prompts that differ', () => {

  it('prefills only the tokens after the cached prefix of an identical earlier prompt (at least the last ' +
    'token)', () => {
    const e = new Batcher(A);
    e.add(withHashes('a', 4001, 2));
    const first = drain(e);
    expect(first.steps[0]!.tokens).toBe(4001);
    e.add(withHashes('b', 4001, 2));
    const second = drain(e, first.endMs);
    // floor(4000/16) = 250 blocks = 4000 tokens cached, 1 prefilled.
    expect(second.steps[0]!.tokens).toBe(1);
    expect(second.finished[0]!.cachedTokens).toBe(4000);
    expect(e.prefixQueryTokensTotal).toBe(8002);
    expect(e.prefixHitTokensTotal).toBe(4000);
    const ttft = (r: ReturnType<typeof drain>, start: number) => r.tokens[0]!.atMs - start;
    expect(ttft(second, first.endMs)).toBeLessThan(ttft(first, 0) / 2);
    // A prompt that is a whole number of blocks recomputes its last block (vLLM: hit <= n - 1 tokens, block-aligned).
    e.add(withHashes('c', 1024, 1, 7));
    drain(e, second.endMs);
    e.add(withHashes('d', 1024, 1, 7));
    expect(e.beginStep(0)!.tokens).toBe(16);
    e.endStep();
  });

  it('shares nothing between prompts that differ in their first block, and is off when disabled', () => {
    const e = new Batcher(A);
    e.add(withHashes('a', 1000, 2, 0));
    drain(e);
    e.add(withHashes('b', 1000, 2, 1));
    expect(e.beginStep(0)!.tokens).toBe(1000);
    e.endStep();
    const off = new Batcher(A, { prefixCaching: false });
    off.add(withHashes('a', 1000, 2));
    drain(off);
    off.add(withHashes('b', 1000, 2));
    expect(off.beginStep(0)!.tokens).toBe(1000);
    expect(off.prefixQueryTokensTotal).toBe(0);
  });
});

describe('Batcher prefix cache: virtual runs, response blocks and preempted requests', () => {
  it('virtual runs: unique prompts give the same prediction with and without the cache; ' +
    'a shared prefix shortens them', () => {
    for (const [ctx, out, n] of [[8192, 64, 20], [1024, 128, 42], [32_768, 16, 6]] as const) {
      const on = runVirtualBatch(A, ctx, out, n);
      const off = runVirtualBatch(A, ctx, out, n, { prefixCaching: false });
      expect(on).toEqual(off);
      // Explicitly unique hashes are no different from none.
      expect(runVirtualBatch(A, ctx, out, n, { sharedPrefixTokens: 0 })).toEqual(off);
    }
    // Under preemption a re-admitted request finds what is left of its own prompt blocks (as vLLM does): a small gain.
    const pOn = runVirtualBatch(A, 8192, 1024, 125);
    const pOff = runVirtualBatch(A, 8192, 1024, 125, { prefixCaching: false });
    expect(pOn.preemptions).toBeGreaterThan(0);
    expect(pOn.wallMs).toBeLessThanOrEqual(pOff.wallMs);
    expect(pOn.wallMs / pOff.wallMs).toBeGreaterThan(0.999);
    const unique = runVirtualBatch(A, 8192, 16, 20);
    const shared = runVirtualBatch(A, 8192, 16, 20, { sharedPrefixTokens: 8000 });
    expect(shared.wallMs).toBeLessThan(unique.wallMs / 3);
  });

  it("caches a response's blocks when its hashes cover it, and tells the cached prompt tokens with the first " +
    "token", () => {
    const e = new Batcher(A);
    // Hashes over prompt + response ids: the next turn's prompt (1000 + 40 + 20 tokens) repeats both.
    e.add({ ...req('a', 1000, 40), blockHashes: hashes(1040) });
    const first = drain(e);
    e.add({ ...req('b', 1060, 8), blockHashes: hashes(1068) });
    const second = drain(e, first.endMs);
    // Every block whose KV was computed: the prompt and the response but its last (sampled, never fed) token.
    const cached = 16 * Math.floor((1000 + 40 - 1) / 16);
    expect(second.finished[0]!.cachedTokens).toBe(cached);
    expect(second.steps[0]!.tokens).toBe(1060 - cached);
    expect(first.tokens.filter((t) => t.cachedTokens !== undefined).map((t) => [t.index, t.cachedTokens])).toEqual([
      [1, 0],
    ]);
    expect(second.tokens.filter((t) => t.cachedTokens !== undefined).map((t) => [t.index, t.cachedTokens])).toEqual([
      [1, cached],
    ]);
  });

  it('a preempted request finds its own prompt blocks again when they were not evicted', () => {
    const tiny = parseProfile({ scheduler: { kvCapacityTokens: 1024, blockSize: 16 } }, 'test');
    const e = new Batcher(tiny);
    e.add(withHashes('old', 400, 300, 0));
    e.add(withHashes('new', 400, 300, 5000));
    const { finished } = drain(e);
    expect(e.preemptionsTotal).toBeGreaterThan(0);
    expect(finished.every((f) => f.generatedTokens === 300)).toBe(true);
    expect(e.kv.usedBlocks).toBe(0);
  });
});

describe('Batcher prefill-first policy (SGLang, profile E)', () => {
  const E = findProfile('E')!;

  it('runs no decode while a prompt is left to prefill, and streams the first token with the second', () => {
    const e = new Batcher(E);
    e.add(req('a', 10_000, 4));
    e.add(req('b', 10_000, 4));
    const { tokens, steps } = drain(e);
    // 20,000 prompt tokens in 8192-token prefill-only steps, then decode steps of both requests.
    expect(steps.map((s) => s.tokens)).toEqual([8192, 8192, 3616, 2, 2, 2]);
    const a = tokens.filter((t) => t.id === 'a');
    // a's prompt was done after step 2, but its first token waits for b's prefill and goes out with its second.
    expect(a.map((t) => t.index)).toEqual([1, 2, 3, 4]);
    expect(a[0]!.atMs).toBe(a[1]!.atMs);
    expect(a[0]!.gapMs).toBeNull();
    expect(a[1]!.gapMs).toBe(0);
    const prefillEndMs = steps.slice(0, 3).reduce((s, x) => s + x.durationMs, 0);
    expect(a[0]!.atMs).toBeGreaterThan(prefillEndMs);
  });

  it('under KV pressure it preempts a decoding request instead of stalling, and every request finishes', () => {
    // Two prompts of 1000 fit (2 x (193 state + 63) blocks of 566), but not their growth to 1600 tokens (2 x 293).
    const tight = parseProfile({ base: 'E', scheduler: { kvCapacityTokens: 16 * (2 * 193 + 180) } }, 'test');
    const e = new Batcher(tight);
    for (const id of ['a', 'b', 'c']) e.add(req(id, 1000, 600));
    const { finished } = drain(e);
    expect(finished.map((f) => [f.id, f.generatedTokens]).sort()).toEqual([['a', 600], ['b', 600], ['c', 600]]);
    expect(finished.some((f) => f.preemptions > 0)).toBe(true);
  });

  it('a one-token request is not held: its only token goes out at its prefill end', () => {
    const e = new Batcher(E);
    e.add(req('a', 1000, 1));
    const { tokens, steps } = drain(e);
    expect(steps).toHaveLength(1);
    expect(tokens.map((t) => [t.index, t.finished])).toEqual([[1, 'length']]);
  });

  it('vLLM profiles keep mixing decode tokens into prefill steps', () => {
    const e = new Batcher(A);
    e.add(req('a', 10_000, 4));
    e.add(req('b', 10_000, 4));
    const { steps } = drain(e);
    // Step 3 carries b's last 3616 prompt tokens and a's first decode token.
    expect(steps.map((s) => s.tokens)).toEqual([8192, 8192, 3617, 2, 2, 1]);
  });
});
