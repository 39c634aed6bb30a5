// The simulator's prefix cache over real HTTP. Runs in Node (vitest).
// Unique per-request prefixes never hit; identical prompts hit and cut TTFT; eviction under KV pressure, counters, the
// switch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText, sumSamples } from '../../lib/prometheus';
import { fillerText, requestPrefix } from '../../lib/prompt-text';
import { findProfile } from '../../sim/profiles';
import { startSim, type SimServer } from '../../sim/server';
import { stepTime } from '../../sim/step-time';
import { runVirtualBatch } from '../../sim/virtual-run';
import { contentEvents, MODEL_A, postJson, postStream, usageOf, wordsPrompt } from './helpers';

async function scrape(sim: SimServer) {
  const text = await (await fetch(sim.url.replace(/\/v1$/, '/metrics'))).text();
  const samples = parsePrometheusText(text);
  return {
    text,
    // NaN when absent, so arithmetic on a missing series fails its assertion.
    queries: sumSamples(samples, 'vllm:prefix_cache_queries_total') ?? NaN,
    hits: sumSamples(samples, 'vllm:prefix_cache_hits_total') ?? NaN,
    sglangHitRate: sumSamples(samples, 'sglang:cache_hit_rate') ?? NaN,
  };
}

const A = findProfile('A')!;

/** Streams one chat request; returns its client-side TTFT and prompt tokens. */
async function chat(sim: SimServer, content: string, maxTokens = 4): Promise<{ ttftMs: number; promptTokens: number }> {
  const r = await postStream(`${sim.url}/chat/completions`, {
    model: MODEL_A, messages: [{ role: 'user', content }], max_tokens: maxTokens, ignore_eos: true, stream: true,
    stream_options: { include_usage: true },
  });
  const c = contentEvents(r);
  expect(c).toHaveLength(maxTokens);
  return { ttftMs: c[0]!.atMs - r.startMs, promptTokens: usageOf(r)!.prompt_tokens };
}

async function completion(sim: SimServer, prompt: string, maxTokens: number): Promise<number> {
  const r = await postStream(`${sim.url}/completions`, {
    model: MODEL_A, prompt, max_tokens: maxTokens, ignore_eos: true, stream: true,
    stream_options: { include_usage: true },
  });
  expect(contentEvents(r)).toHaveLength(maxTokens);
  return usageOf(r)!.prompt_tokens;
}

/** vLLM: full blocks of the prompt, at most floor((n - 1) / 16) of them (the last token is always recomputed). */
const hitTokensOf = (n: number): number => Math.floor((n - 1) / 16) * 16;

describe('prefix cache, profile A (on by default)', () => {
  let sim: SimServer;
  const body = fillerText(16_000, 11);
  beforeAll(async () => {
    sim = await startSim({ profile: 'A', tokenizerWorkers: 1 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('unique per-request first lines (lib/prompt-set requestPrefix) give a hit rate of zero, ' +
    'across VUs and within one', async () => {
    const before = await scrape(sim);
    let prompt = 0;
    for (let vu = 1; vu <= 3; vu++)
      prompt += (await chat(sim, requestPrefix('unique', 4242, vu, 0) + body)).promptTokens;
    const mid = await scrape(sim);
    expect(mid.queries - before.queries).toBe(prompt);
    expect(mid.hits - before.hits).toBe(0);
    expect(mid.text).toMatch(/vllm:cache_config_info\{[^}]*enable_prefix_caching="True"/);
    // The user and iteration sit in the first 16-token block, so a VU's next request shares no block either.
    const next = await chat(sim, requestPrefix('unique', 4242, 1, 1) + body);
    const after = await scrape(sim);
    expect(after.queries - mid.queries).toBe(next.promptTokens);
    expect(after.hits - mid.hits).toBe(0);
  });

  it('identical prompts (shared-prefix mode) hit on the second request, whose TTFT drops to one short ' +
    'step', async () => {
    const content = requestPrefix('shared-prefix', 4242, 1, 0) + body;
    // Warm the tokenizer's cache so tokenizing time is out of both TTFTs (the prefix cache is untouched by /tokenize).
    await postJson(sim.url.replace(/\/v1$/, '/tokenize'), { messages: [{ role: 'user', content }] });
    const before = await scrape(sim);
    const first = await chat(sim, content);
    const mid = await scrape(sim);
    const second = await chat(sim, content);
    const after = await scrape(sim);
    const n = first.promptTokens;
    expect(n).toBeGreaterThan(16_000);
    expect(mid.queries - before.queries).toBe(n);
    expect(mid.hits - before.hits).toBe(0);
    expect(after.queries - mid.queries).toBe(n);
    expect(after.hits - mid.hits).toBe(hitTokensOf(n));
    // The model's predictions: a full prefill, then o_req plus one step of the few uncached tokens over the cached
    // context.
    const missModel = runVirtualBatch(A, n, 4, 1).requests[0]!.ttftMs;
    const cached = hitTokensOf(n);
    const hitModel =
      A.hardware.requestOverheadMs + stepTime(A.hardware, [{ newTokens: n - cached, cachedTokens: cached }]).totalMs;
    expect(Math.abs(first.ttftMs / missModel - 1)).toBeLessThan(0.15);
    expect(second.ttftMs).toBeLessThan(hitModel + 25);
    expect(second.ttftMs).toBeGreaterThan(hitModel - 5);
    expect(first.ttftMs - second.ttftMs).toBeGreaterThan(0.7 * (missModel - hitModel));
    console.log(
      `prefix cache: ${n}-token prompt, TTFT miss ${first.ttftMs.toFixed(1)} ms (model ${missModel.toFixed(1)}), ` +
      `hit ${second.ttftMs.toFixed(1)} ms (model ${hitModel.toFixed(1)})`,
    );
  });
});

describe('prefix cache eviction under KV pressure', () => {
  it('a cached prefix misses once a long request has reused all of its blocks', async () => {
    // 4096 tokens of KV = 256 blocks.
    const sim = await startSim({ profile: { base: 'A', scheduler: { kvCapacityTokens: 4096 } }, tokenizerWorkers: 1 });
    try {
      const a = wordsPrompt(600, 1);
      const n = await completion(sim, a, 2);
      const s1 = await scrape(sim);
      expect(s1.hits).toBe(0);
      await completion(sim, a, 2);
      const s2 = await scrape(sim);
      expect(s2.hits - s1.hits).toBe(hitTokensOf(n));
      // A different 4000-token prompt plus 90 outputs grows to all 256 blocks: every free block is reused,
      // the never-used ones first, then the cached ones least recently freed first.
      const m = await completion(sim, wordsPrompt(4000, 3), 90);
      expect(m + 90).toBeLessThanOrEqual(4096);
      const s3 = await scrape(sim);
      expect(s3.hits - s2.hits).toBe(0);
      await completion(sim, a, 2);
      const s4 = await scrape(sim);
      expect(s4.queries - s3.queries).toBe(n);
      expect(s4.hits - s3.hits).toBe(0);
      // ...and cached again for the next one.
      await completion(sim, a, 2);
      expect((await scrape(sim)).hits - s4.hits).toBe(hitTokensOf(n));
    } finally {
      await sim.close();
    }
  });
});

describe('prefix cache switch and flavours', () => {
  it('prefixCache: false (--no-prefix-cache) computes every prompt: no hits, no TTFT drop', async () => {
    const sim = await startSim({ profile: 'A', tokenizerWorkers: 1, prefixCache: false });
    try {
      const content = requestPrefix('shared-prefix', 1, 1, 0) + fillerText(8000, 5);
      await postJson(sim.url.replace(/\/v1$/, '/tokenize'), { messages: [{ role: 'user', content }] });
      const first = await chat(sim, content);
      const second = await chat(sim, content);
      const m = await scrape(sim);
      expect(m.queries).toBe(0);
      expect(m.hits).toBe(0);
      expect(m.text).toMatch(/vllm:cache_config_info\{[^}]*enable_prefix_caching="False"/);
      const model = runVirtualBatch(A, first.promptTokens, 4, 1, { prefixCaching: false }).requests[0]!.ttftMs;
      expect(Math.abs(second.ttftMs / model - 1)).toBeLessThan(0.15);
      expect(second.ttftMs).toBeGreaterThan(0.8 * first.ttftMs);
    } finally {
      await sim.close();
    }
  });

  it('SGLang flavour: sglang:cache_hit_rate is the hit share of the latest prefill batch', async () => {
    const sim = await startSim({ profile: 'A', flavour: 'sglang', tokenizerWorkers: 1 });
    try {
      const prompt = wordsPrompt(1000, 2);
      const n = await completion(sim, prompt, 2);
      const m1 = await scrape(sim);
      expect(m1.text).toContain('# TYPE sglang:cache_hit_rate gauge');
      expect(m1.sglangHitRate).toBe(0);
      expect(m1.text).not.toContain('vllm:prefix_cache');
      await completion(sim, prompt, 2);
      expect((await scrape(sim)).sglangHitRate).toBeCloseTo(hitTokensOf(n) / n, 9);
    } finally {
      await sim.close();
    }
  });
});
