// /metrics over loopback: vLLM names and types parsed back, preemption under KV pressure, and the SGLang flavour.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { parsePrometheusText, readServerSnapshot, sumSamples } from '../../lib/prometheus';
import { startSim } from '../../sim/server';
import { contentEvents, MODEL_A, postStream, usageOf, wordsPrompt } from './helpers';

async function scrape(url: string) {
  const text = await (await fetch(url.replace(/\/v1$/, '/metrics'))).text();
  return { text, samples: parsePrometheusText(text) };
}

/** A tiny fast GPU: steps of about half a millisecond, and KV for 1024 tokens (64 blocks of 16). */
const TINY = {
  name: 'tiny-test',
  hardware: {
    t0Ms: 0.5, denseWeightBytes: 1e6, expertWeightBytes: 1e6, lambdaUsPerToken: 0.01, alphaSecondsPerPair: 0,
    requestOverheadMs: 1,
  },
  scheduler: { kvCapacityTokens: 1024, blockSize: 16 },
};

describe('vLLM metrics: names, types and what was served', () => {
  it('exposes the model doc names and types, and counts what was served', async () => {
    const sim = await startSim({ fixed: { ttftMs: 5, itlMs: 1 }, tokenizerWorkers: 1 });
    try {
      const body = {
        model: MODEL_A, messages: [{ role: 'user', content: 'hi' }], max_tokens: 8, ignore_eos: true, stream: true,
        stream_options: { include_usage: true },
      };
      const rs = await Promise.all([
        postStream(`${sim.url}/chat/completions`, body), postStream(`${sim.url}/chat/completions`, body),
      ]);
      const { text, samples } = await scrape(sim.url);
      for (const [name, type] of [
        ['vllm:num_requests_running', 'gauge'], ['vllm:num_requests_waiting', 'gauge'],
        ['vllm:kv_cache_usage_perc', 'gauge'], ['vllm:cache_config_info', 'gauge'],
        ['vllm:prompt_tokens_total', 'counter'], ['vllm:generation_tokens_total', 'counter'],
        ['vllm:request_success_total', 'counter'], ['vllm:num_preemptions_total', 'counter'],
        ['vllm:time_to_first_token_seconds', 'histogram'], ['vllm:inter_token_latency_seconds', 'histogram'],
        ['vllm:e2e_request_latency_seconds', 'histogram'], ['vllm:request_queue_time_seconds', 'histogram'],
        ['vllm:request_prefill_time_seconds', 'histogram'], ['vllm:request_decode_time_seconds', 'histogram'],
        ['vllm:request_inference_time_seconds', 'histogram'], ['vllm:request_prompt_tokens', 'histogram'],
        ['vllm:request_generation_tokens', 'histogram'], ['DCGM_FI_DEV_POWER_USAGE', 'gauge'],
      ]) {
        expect(text, name).toContain(`# TYPE ${name} ${type}`);
      }
      const running = samples.find((s) => s.name === 'vllm:num_requests_running')!;
      expect(running.labels).toMatchObject({ model_name: MODEL_A, engine: '0' });
      const snap = readServerSnapshot(samples);
      expect(snap.generationTokensTotal).toBe(16);
      expect(snap.promptTokensTotal).toBe(2 * usageOf(rs[0]!)!.prompt_tokens);
      expect(snap.serverTtftCount).toBe(2);
      expect(snap.running).toBe(0);
      expect(snap.powerWatts).toBeGreaterThan(0);
      expect(
        samples.find((s) => s.name === 'vllm:request_success_total' && s.labels.finished_reason === 'length')!.value,
      ).toBe(2);
      expect(sumSamples(samples, 'vllm:inter_token_latency_seconds_count')).toBe(14);
    } finally {
      await sim.close();
    }
  });
});

describe('vLLM metrics under load: preemption, running and waiting requests', () => {
  it('preempts under KV pressure (small custom profile), and every stream still completes', async () => {
    const sim = await startSim({ profile: TINY, tokenizerWorkers: 1 });
    try {
      // Each request grows to ~400 + 300 tokens; three of them cannot fit in 1024 tokens of KV.
      const body = (i: number) => ({
        model: MODEL_A, prompt: `#${i}\n${wordsPrompt(400)}`, max_tokens: 300, ignore_eos: true, stream: true,
        stream_options: { include_usage: true },
      });
      const rs = await Promise.all([0, 1, 2].map((i) => postStream(`${sim.url}/completions`, body(i))));
      for (const r of rs) {
        expect(r.error).toBeNull();
        expect(contentEvents(r)).toHaveLength(300);
        expect(usageOf(r)!.completion_tokens).toBe(300);
      }
      const snap = readServerSnapshot((await scrape(sim.url)).samples);
      expect(snap.preemptionsTotal).toBeGreaterThan(0);
      expect(snap.kvCacheUsage).toBe(0);
    } finally {
      await sim.close();
    }
  });

  it('shows running and waiting requests and KV usage while under load', async () => {
    const sim = await startSim({
      profile: { ...TINY, scheduler: { ...TINY.scheduler, maxNumSeqs: 1 } }, tokenizerWorkers: 1,
    });
    try {
      const body = { model: MODEL_A, prompt: 'hello', max_tokens: 900, ignore_eos: true, stream: true };
      const seen = new Promise<void>((resolve) => sim.events.on('request', () => resolve()));
      const streams = [postStream(`${sim.url}/completions`, body), postStream(`${sim.url}/completions`, body)];
      await seen;
      // Poll (an event-driven wait) until both are in the batcher: one running, one waiting.
      let snap = readServerSnapshot((await scrape(sim.url)).samples);
      const deadline = performance.now() + 5000;
      while (!(snap.running === 1 && snap.waiting === 1) && performance.now() < deadline)
        snap = readServerSnapshot((await scrape(sim.url)).samples);
      expect(snap).toMatchObject({ running: 1, waiting: 1 });
      expect(snap.kvCacheUsage).toBeGreaterThan(0);
      const done = await Promise.all(streams);
      expect(done.map((r) => contentEvents(r).length)).toEqual([900, 900]);
    } finally {
      await sim.close();
    }
  });
});

describe('client disconnect', () => {
  it('frees the request in the batcher and counts it as finished_reason abort', async () => {
    const sim = await startSim({ profile: TINY, tokenizerWorkers: 1 });
    try {
      const aborted = new Promise<{ reason: string; generatedTokens: number }>((resolve) =>
        sim.events.on('finished', (ev) => resolve(ev)),
      );
      const ctrl = new AbortController();
      const res = await fetch(`${sim.url}/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL_A, prompt: 'hello', max_tokens: 900, ignore_eos: true, stream: true }),
        signal: ctrl.signal,
      });
      const reader = res.body!.getReader();
      await reader.read();
      ctrl.abort();
      const ev = await aborted;
      expect(ev.reason).toBe('abort');
      expect(ev.generatedTokens).toBeLessThan(900);
      const { samples } = await scrape(sim.url);
      expect(
        samples.find((x) => x.name === 'vllm:request_success_total' && x.labels.finished_reason === 'abort')!.value,
      ).toBe(1);
      const snap = readServerSnapshot(samples);
      expect(snap.running).toBe(0);
      expect(snap.kvCacheUsage).toBe(0);
    } finally {
      await sim.close();
    }
  });
});

describe('SGLang flavour', () => {
  it('uses sglang: metric names and sends several tokens per chunk with the stream interval', async () => {
    const sim = await startSim({
      flavour: 'sglang', streamInterval: 4, fixed: { ttftMs: 5, itlMs: 1 }, tokenizerWorkers: 1,
    });
    try {
      const r = await postStream(`${sim.url}/chat/completions`, {
        model: MODEL_A, messages: [{ role: 'user', content: 'hi' }], max_tokens: 10, ignore_eos: true, stream: true,
        stream_options: { include_usage: true },
      });
      const c = contentEvents(r);
      // 10 tokens in chunks of 4, 4, 2; then a separate finish chunk; usage counts tokens, not chunks.
      expect(c.map((e) => e.text.trim().split(' ').length)).toEqual([4, 4, 2]);
      expect(usageOf(r)!.completion_tokens).toBe(10);
      const finish = r.events.map((e) => e.data).filter((d) => d.includes('"finish_reason":"length"'));
      expect(finish).toHaveLength(1);
      expect(JSON.parse(finish[0]!).choices[0].delta).toEqual({});
      const { text, samples } = await scrape(sim.url);
      for (const name of [
        'sglang:num_running_reqs', 'sglang:num_queue_reqs', 'sglang:token_usage', 'sglang:time_to_first_token_seconds',
      ])
        expect(text).toContain(`# TYPE ${name}`);
      expect(text).not.toContain('vllm:');
      expect(readServerSnapshot(samples).generationTokensTotal).toBe(10);
    } finally {
      await sim.close();
    }
  });
});

describe('SGLang flavour under a stall', () => {
  it('catches up in one multi-token chunk, as SGLang does when a stream falls behind', async () => {
    const sim = await startSim({ flavour: 'sglang', fixed: { ttftMs: 5, itlMs: 2 }, tokenizerWorkers: 1 });
    try {
      const r = await postStream(
        `${sim.url}/chat/completions`,
        {
          model: MODEL_A, messages: [{ role: 'user', content: 'hi' }], max_tokens: 20, ignore_eos: true, stream: true,
          stream_options: { include_usage: true },
        },
        { 'x-sim-fault': 'stall;ms=100;after=2' },
      );
      const sizes = contentEvents(r).map((e) => e.text.trim().split(' ').length);
      expect(sizes.slice(0, 2)).toEqual([1, 1]);
      expect(Math.max(...sizes)).toBeGreaterThan(10);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(20);
      expect(usageOf(r)!.completion_tokens).toBe(20);
    } finally {
      await sim.close();
    }
  });
});

describe('DCGM power gauge', () => {
  it('exports one series per GPU of a tensor-parallel profile, and the snapshot sums them', async () => {
    const sim = await startSim({ profile: 'E', tokenizerWorkers: 1 });
    try {
      const idle = (await scrape(sim.url)).samples.filter((x) => x.name === 'DCGM_FI_DEV_POWER_USAGE');
      expect(idle.map((x) => [x.labels.gpu, x.labels.device, x.value])).toEqual([
        ['0', 'nvidia0', 60], ['1', 'nvidia1', 60],
      ]);
      expect(idle[0]!.labels.modelName).toContain('RTX PRO 6000');
      const model = 'Qwen/Qwen3-Coder-Next-FP8';
      const r = await postStream(`${sim.url}/chat/completions`, {
        model, messages: [{ role: 'user', content: wordsPrompt(3000) }], max_tokens: 20, ignore_eos: true, stream: true,
      });
      expect(r.error).toBeNull();
      // The 0.5 s lag holds the draw above idle for a while after the last step.
      const { samples } = await scrape(sim.url);
      const series = samples.filter((x) => x.name === 'DCGM_FI_DEV_POWER_USAGE');
      expect(series).toHaveLength(2);
      expect(series[0]!.value).toBeGreaterThan(60);
      expect(series[1]!.value).toBe(series[0]!.value);
      expect(readServerSnapshot(samples).powerWatts).toBeCloseTo(series[0]!.value * 2, 6);
    } finally {
      await sim.close();
    }
  });

  it('a one-GPU profile exports gpu="0" only, named after its GPU', async () => {
    const sim = await startSim({ profile: 'B', fixed: { ttftMs: 5, itlMs: 1 }, tokenizerWorkers: 1 });
    try {
      const series = (await scrape(sim.url)).samples.filter((x) => x.name === 'DCGM_FI_DEV_POWER_USAGE');
      expect(series.map((x) => [x.labels.gpu, x.labels.modelName])).toEqual([['0', 'NVIDIA H100 PCIe (simulated)']]);
    } finally {
      await sim.close();
    }
  });
});
