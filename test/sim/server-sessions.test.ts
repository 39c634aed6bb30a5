// Conversations against the simulator over real HTTP: each turn sends the history back, and the prefix cache serves
// the earlier turns, responses included; usage reports the cached tokens as vLLM does; eviction under KV pressure.
// Runs in Node (vitest).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText, sumSamples } from '../../lib/prometheus';
import { fillerText, requestPrefix } from '../../lib/prompt-text';
import { startSim, type SimServer } from '../../sim/server';
import { contentEvents, MODEL_A, postJson, postStream, usageOf } from './helpers';

interface Message {
  role: 'user' | 'assistant';
  content: string;
}

interface Turn {
  promptTokens: number;
  completionTokens: number;
  /** usage.prompt_tokens_details.cached_tokens; null when the field is absent. */
  cachedTokens: number | null;
  ttftMs: number;
  text: string;
}

async function turn(sim: SimServer, messages: readonly Message[], maxTokens: number): Promise<Turn> {
  const r = await postStream(`${sim.url}/chat/completions`, {
    model: MODEL_A, messages, max_tokens: maxTokens, ignore_eos: true, stream: true,
    stream_options: { include_usage: true },
  });
  const content = contentEvents(r);
  const usage = usageOf(r)!;
  return {
    promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? null, ttftMs: content[0]!.atMs - r.startMs,
    text: content.map((c) => c.text).join(''),
  };
}

/** A conversation of `turns` turns: every turn sends the history (the responses as returned) and a new message. */
async function converse(sim: SimServer, first: string, turns: number, maxTokens: number): Promise<Turn[]> {
  const messages: Message[] = [{ role: 'user', content: first }];
  const out: Turn[] = [];
  for (let t = 0; t < turns; t++) {
    const r = await turn(sim, messages, maxTokens);
    out.push(r);
    messages.push(
      { role: 'assistant', content: r.text }, { role: 'user', content: `Turn ${t + 2}: ${fillerText(60, t)}` },
    );
  }
  return out;
}

async function counters(sim: SimServer): Promise<{ queries: number; hits: number }> {
  const samples = parsePrometheusText(await (await fetch(sim.url.replace(/\/v1$/, '/metrics'))).text());
  return {
    queries: sumSamples(samples, 'vllm:prefix_cache_queries_total') ?? NaN,
    hits: sumSamples(samples, 'vllm:prefix_cache_hits_total') ?? NaN,
  };
}

/**
 * What turn t+1 finds cached of turn t: every full 16-token block whose KV was computed, its prompt and all of its
 * response but the last token (which is sampled, never fed back): 16 x floor((prompt + completion - 1) / 16).
 */
const cachedAfter = (t: Turn): number => 16 * Math.floor((t.promptTokens + t.completionTokens - 1) / 16);

describe('conversations on the prefix cache (profile A)', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ profile: 'A', tokenizerWorkers: 1 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('each turn finds the whole previous turn cached, the response included, ' +
    'and usage says how many tokens', async () => {
    const before = await counters(sim);
    const turns = await converse(sim, requestPrefix('unique', 7, 1, 0) + fillerText(3000, 3), 3, 40);
    expect(turns[0]!.cachedTokens).toBe(0); // vLLM 0.32 states 0 when nothing was cached
    for (let t = 1; t < turns.length; t++) {
      expect(turns[t]!.cachedTokens, `turn ${t + 1}`).toBe(cachedAfter(turns[t - 1]!));
      // The new message and the template around it are what is left to prefill.
      expect(turns[t]!.promptTokens - turns[t]!.cachedTokens!).toBeLessThan(120);
    }
    const after = await counters(sim);
    expect(after.queries - before.queries).toBe(turns.reduce((n, t) => n + t.promptTokens, 0));
    expect(after.hits - before.hits).toBe(turns.reduce((n, t) => n + (t.cachedTokens ?? 0), 0));
  });

  it('a turn whose history is cached starts much sooner than the first, though its prompt is longer', async () => {
    const [cold, warm] = await converse(sim, requestPrefix('unique', 7, 2, 0) + fillerText(12_000, 4), 2, 16);
    expect(warm!.promptTokens).toBeGreaterThan(cold!.promptTokens);
    expect(warm!.cachedTokens!).toBeGreaterThan(12_000);
    expect(warm!.ttftMs).toBeLessThan(0.5 * cold!.ttftMs);
  });

  it('many conversations at once each hit their own history only', async () => {
    const firsts = Array.from({ length: 6 }, (_, u) => requestPrefix('unique', 9, u + 1, 0) + fillerText(1500, 10 + u));
    const all = await Promise.all(firsts.map((f) => converse(sim, f, 3, 24)));
    for (const [u, turns] of all.entries()) {
      expect(turns[0]!.cachedTokens, `user ${u} turn 1`).toBe(0);
      expect(turns[1]!.cachedTokens, `user ${u} turn 2`).toBe(cachedAfter(turns[0]!));
      expect(turns[2]!.cachedTokens, `user ${u} turn 3`).toBe(cachedAfter(turns[1]!));
    }
  });

  it('non-streaming responses carry the cached tokens too', async () => {
    const first = requestPrefix('unique', 7, 4, 0) + fillerText(800, 5);
    const url = `${sim.url}/chat/completions`;
    const a = await postJson(url, { model: MODEL_A, messages: [{ role: 'user', content: first }], max_tokens: 8 });
    const body = a.json as { choices: { message: { content: string } }[]; usage: { prompt_tokens: number } };
    const answer = body.choices[0]!.message.content;
    const b = await postJson(url, {
      model: MODEL_A, max_tokens: 8,
      messages: [
        { role: 'user', content: first }, { role: 'assistant', content: answer }, { role: 'user', content: 'More.' },
      ],
    });
    const usage = (b.json as { usage: { prompt_tokens_details?: { cached_tokens: number } } }).usage;
    expect(usage.prompt_tokens_details?.cached_tokens).toBe(16 * Math.floor((body.usage.prompt_tokens + 8 - 1) / 16));
  });
});

describe('conversations under KV pressure', () => {
  it("a user who comes back after others filled the cache finds the history evicted, then cached again", async () => {
    // 8192 tokens of KV = 512 blocks: three other 3K conversations of 2 turns reuse every block A's turn left free.
    const sim = await startSim({ profile: { base: 'A', scheduler: { kvCapacityTokens: 8192 } }, tokenizerWorkers: 1 });
    try {
      const messages: Message[] = [{ role: 'user', content: requestPrefix('unique', 5, 1, 0) + fillerText(2000, 1) }];
      const a1 = await turn(sim, messages, 32);
      messages.push({ role: 'assistant', content: a1.text }, { role: 'user', content: 'And then?' });
      for (const u of [2, 3, 4]) await converse(sim, requestPrefix('unique', 5, u, 0) + fillerText(3000, u), 2, 32);
      const a2 = await turn(sim, messages, 32);
      expect(a2.cachedTokens).toBe(0);
      messages.push({ role: 'assistant', content: a2.text }, { role: 'user', content: 'And after that?' });
      const a3 = await turn(sim, messages, 32);
      expect(a3.cachedTokens).toBe(cachedAfter(a2));
    } finally {
      await sim.close();
    }
  });
});
