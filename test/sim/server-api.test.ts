// The simulator's HTTP surface over loopback. Runs in Node (vitest).
// Streaming and non-streaming responses, /tokenize, /v1/models, /health, input errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type SimServer } from '../../sim/server';
import { naturalLength } from '../../sim/text';
import { loadQwen3Tokenizer } from '../../tokenizer/qwen3';
import { contentEvents, MODEL_A, postJson, postStream, usageOf } from './helpers';

let sim: SimServer;
let base: string;
beforeAll(async () => {
  // Fixed timing keeps this suite fast; the physics are tested elsewhere.
  sim = await startSim({ fixed: { ttftMs: 20, itlMs: 2 }, apiKey: undefined, groundTruth: true, tokenizerWorkers: 1 });
  base = sim.url.replace(/\/v1$/, '');
});
afterAll(async () => {
  await sim.close();
});

const chat = (extra: Record<string, unknown> = {}) => ({
  model: MODEL_A, messages: [{ role: 'user', content: 'Say something.' }], max_tokens: 12, ignore_eos: true, ...extra,
});

describe('streaming chat completions: chunks, usage, seeds and request ids', () => {
  it('sends the role chunk, one chunk per token, finish_reason on the last, usage, then [DONE]', async () => {
    const r = await postStream(
      `${sim.url}/chat/completions`, chat({ stream: true, stream_options: { include_usage: true } }),
    );
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/text\/event-stream/);
    expect(r.headers['x-request-id']).toBeTruthy();
    const payloads = r.events.map((e) => e.data);
    expect(payloads.at(-1)).toBe('[DONE]');
    const first = JSON.parse(payloads[0]!);
    expect(first.object).toBe('chat.completion.chunk');
    expect(first.id).toMatch(/^chatcmpl-/);
    expect(first.choices[0].delta).toEqual({ role: 'assistant', content: '' });
    const content = contentEvents(r);
    expect(content).toHaveLength(12);
    expect(content.slice(0, 11).every((c) => c.finish === null)).toBe(true);
    expect(content[11]!.finish).toBe('length');
    const usage = usageOf(r)!;
    const prompt = loadQwen3Tokenizer().countChat([{ role: 'user', content: 'Say something.' }]);
    expect(usage).toEqual({
      prompt_tokens: prompt, completion_tokens: 12, total_tokens: prompt + 12,
      prompt_tokens_details: { cached_tokens: 0 },
    });
    const usageChunk = JSON.parse(payloads.at(-2)!);
    expect(usageChunk.choices).toEqual([]);
    // The text a client assembles tokenizes to completion_tokens.
    expect(loadQwen3Tokenizer().countText(content.map((c) => c.text).join(''))).toBe(12);
  });

  it('sends no usage chunk unless include_usage is set', async () => {
    const r = await postStream(`${sim.url}/chat/completions`, chat({ stream: true }));
    expect(usageOf(r)).toBeNull();
    expect(r.events.at(-1)!.data).toBe('[DONE]');
  });

  it('gives the same text for the same seed', async () => {
    const a = await postStream(`${sim.url}/chat/completions`, chat({ stream: true, seed: 1234 }));
    const b = await postStream(`${sim.url}/chat/completions`, chat({ stream: true, seed: 1234 }));
    const c = await postStream(`${sim.url}/chat/completions`, chat({ stream: true, seed: 999 }));
    const text = (r: typeof a) => contentEvents(r).map((e) => e.text).join('');
    expect(text(a)).toBe(text(b));
    expect(text(a)).not.toBe(text(c));
  });

  it('echoes a client x-request-id and records ground truth under it', async () => {
    const r = await postStream(`${sim.url}/chat/completions`, chat({ stream: true, max_tokens: 4 }), {
      'x-request-id': 'my-id-1',
    });
    expect(r.headers['x-request-id']).toBe('my-id-1');
    const rec = sim.groundTruth().find((g) => g.requestId === 'my-id-1')!;
    expect(rec.tokenEpochMs).toHaveLength(4);
    expect(rec.outcome).toBe('completed');
    const res = await fetch(`${base}/debug/ground-truth`);
    const body = (await res.json()) as { records: { requestId: string }[] };
    expect(body.records.some((g) => g.requestId === 'my-id-1')).toBe(true);
  });

  it('records the first line of the last user message, at most 64 characters', async () => {
    const long = `[${'7'.repeat(80)}]`;
    const messages = [
      { role: 'user', content: 'an earlier turn' }, { role: 'assistant', content: 'its answer' },
      { role: 'user', content: '[00000001234-000042] Read the text and continue it.\nthe body' },
    ];
    await postStream(`${sim.url}/chat/completions`, { model: MODEL_A, messages, max_tokens: 2, stream: true },
      { 'x-request-id': 'head-1' });
    await postStream(`${sim.url}/completions`, { model: MODEL_A, prompt: `${long}\nrest`, max_tokens: 2, stream: true },
      { 'x-request-id': 'head-2' });
    const head = (id: string) => sim.groundTruth().find((g) => g.requestId === id)!.promptHead;
    expect(head('head-1')).toBe('[00000001234-000042] Read the text and continue it.');
    expect(head('head-2')).toBe(long.slice(0, 64));
  });
});

describe('streaming chat completions: where the output stops', () => {
  it('ends with finish_reason stop before a stop string', async () => {
    const probe = await postStream(`${sim.url}/chat/completions`, chat({ stream: true, seed: 77, max_tokens: 30 }));
    const words = contentEvents(probe).map((c) => c.text);
    const stop = words[10]!.trim();
    const firstHit = words.findIndex((w) => w.includes(stop));
    const r = await postStream(
      `${sim.url}/chat/completions`,
      chat({ stream: true, seed: 77, max_tokens: 30, stop: [stop], stream_options: { include_usage: true } }),
    );
    const content = contentEvents(r);
    expect(content.length).toBeLessThanOrEqual(firstHit);
    expect(content.map((c) => c.text).join('')).not.toContain(stop);
    expect(usageOf(r)!.completion_tokens).toBe(content.length);
    const finish = r.events.map((e) => e.data).filter((d) => d.includes('"finish_reason":"stop"'));
    expect(finish).toHaveLength(1);
  });

  it('stops at a natural EOS without ignore_eos, and not before min_tokens', async () => {
    let seed = 0;
    while (naturalLength(seed, 0) > 300) seed++;
    const natural = naturalLength(seed, 0);
    const body = {
      model: MODEL_A, messages: [{ role: 'user', content: 'x' }], max_tokens: 1500, seed, stream: true,
      stream_options: { include_usage: true },
    };
    const plain = await postStream(`${sim.url}/chat/completions`, body);
    expect(usageOf(plain)!.completion_tokens).toBe(natural);
    expect(plain.events.some((e) => e.data.includes('"finish_reason":"stop"'))).toBe(true);
    const min = await postStream(`${sim.url}/chat/completions`, { ...body, min_tokens: natural + 20 });
    expect(usageOf(min)!.completion_tokens).toBe(natural + 20);
  });
});

describe('completions and non-streaming', () => {
  it('streams /v1/completions without a role chunk', async () => {
    const r = await postStream(`${sim.url}/completions`, {
      model: MODEL_A, prompt: 'Once upon a time', max_tokens: 5, ignore_eos: true, stream: true,
      stream_options: { include_usage: true },
    });
    const first = JSON.parse(r.events[0]!.data);
    expect(first.object).toBe('text_completion');
    expect(first.choices[0].text).not.toBe('');
    expect(contentEvents(r)).toHaveLength(5);
    expect(usageOf(r)!.prompt_tokens).toBe(loadQwen3Tokenizer().countText('Once upon a time'));
  });

  it('answers a non-streaming chat request with one JSON body', async () => {
    const r = await postJson(`${sim.url}/chat/completions`, chat({ max_tokens: 7 }));
    expect(r.status).toBe(200);
    const j = r.json as {
      object: string; choices: { message: { role: string; content: string }; finish_reason: string }[];
      usage: { completion_tokens: number };
    };
    expect(j.object).toBe('chat.completion');
    expect(j.choices[0]!.message.role).toBe('assistant');
    expect(j.choices[0]!.finish_reason).toBe('length');
    expect(j.usage.completion_tokens).toBe(7);
    expect(loadQwen3Tokenizer().countText(j.choices[0]!.message.content)).toBe(7);
  });

  it('answers a non-streaming completion', async () => {
    const r = await postJson(`${sim.url}/completions`, {
      model: MODEL_A, prompt: ['hi'], max_tokens: 3, ignore_eos: true,
    });
    expect(r.status).toBe(200);
    expect((r.json as { object: string }).object).toBe('text_completion');
  });
});

describe('the Responses and Messages APIs', () => {
  const messages = [{ role: 'user' as const, content: 'Say something.' }];
  const chatCount = loadQwen3Tokenizer().countChat(messages);

  it('streams /v1/responses as typed events: text deltas, then response.incomplete with the usage', async () => {
    const r = await postStream(`${sim.url}/responses`, {
      model: MODEL_A, input: messages, max_output_tokens: 6, ignore_eos: true, stream: true,
    });
    expect(r.status).toBe(200);
    expect(r.events.every((e) => JSON.parse(e.data).type === e.event)).toBe(true);
    const types = r.events.map((e) => e.event);
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.filter((t) => t === 'response.output_text.delta')).toHaveLength(6);
    expect(types.at(-1)).toBe('response.incomplete');
    const done = JSON.parse(r.events.at(-1)!.data).response;
    expect(done).toMatchObject({
      status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' },
      usage: { input_tokens: chatCount, output_tokens: 6, input_tokens_details: { cached_tokens: 0 } },
    });
    // A string input is one user message, as OpenAI's API has it: the same prompt tokens.
    const same = await postJson(`${sim.url}/responses`, {
      model: MODEL_A, input: 'Say something.', max_output_tokens: 2,
    });
    expect((same.json as { usage: { input_tokens: number } }).usage.input_tokens).toBe(chatCount);
  });

  it('streams /v1/messages as Anthropic does: message_start, one text block, message_delta, message_stop', async () => {
    const r = await postStream(`${sim.url}/messages`, {
      model: MODEL_A, messages, max_tokens: 5, ignore_eos: true, stream: true,
    });
    expect(r.status).toBe(200);
    const types = r.events.map((e) => e.event);
    expect(types).toEqual([
      'message_start', 'ping', 'content_block_start', ...Array(5).fill('content_block_delta'), 'content_block_stop',
      'message_delta', 'message_stop',
    ]);
    expect(JSON.parse(r.events[0]!.data).message.usage).toMatchObject({
      input_tokens: chatCount, cache_read_input_tokens: 0,
    });
    expect(JSON.parse(r.events.at(-2)!.data)).toMatchObject({
      delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 5 },
    });
  });

  it('counts a system text (Messages system, Responses instructions) as a system message before the ' +
    'conversation', async () => {
    const system = [{ role: 'system' as const, content: 'Be brief.' }, ...messages];
    const expected = loadQwen3Tokenizer().countChat(system);
    const a = await postJson(`${sim.url}/messages`, { model: MODEL_A, system: 'Be brief.', messages, max_tokens: 1 });
    const b = await postJson(`${sim.url}/responses`, { model: MODEL_A, instructions: 'Be brief.', input: messages });
    expect((a.json as { usage: { input_tokens: number } }).usage.input_tokens).toBe(expected);
    expect((b.json as { usage: { input_tokens: number } }).usage.input_tokens).toBe(expected);
  });

  it('refuses a Responses body without input, naming the field', async () => {
    const r = await postJson(`${sim.url}/responses`, { model: MODEL_A, max_output_tokens: 2 });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: { param: 'input', message: 'input is required.' } });
  });
});

describe('other endpoints', () => {
  it('GET /v1/models lists the profile model with its context window', async () => {
    const j = (await (await fetch(`${sim.url}/models`)).json()) as { data: { id: string; max_model_len: number }[] };
    expect(j.data[0]!.id).toBe(MODEL_A);
    expect(j.data[0]!.max_model_len).toBe(262144);
  });

  it('GET /health answers 200', async () => {
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });

  it('POST /tokenize counts a prompt and chat messages as vLLM does', async () => {
    const tok = loadQwen3Tokenizer();
    const a = await postJson(`${base}/tokenize`, { model: MODEL_A, prompt: 'hello world, how are you?' });
    expect(a.json).toMatchObject({
      count: tok.countText('hello world, how are you?'), max_model_len: 262144,
      tokens: tok.encode('hello world, how are you?'),
    });
    const msgs = [{ role: 'user', content: 'hello' }];
    const b = await postJson(`${base}/tokenize`, { model: MODEL_A, messages: msgs });
    expect((b.json as { count: number }).count).toBe(tok.countChat([{ role: 'user', content: 'hello' }]));
  });
});

const errorOf = (j: unknown) =>
  (j as { error: { message: string; type: string; param: string | null; code: number } }).error;

describe('input errors', () => {

  it('400 on bad JSON', async () => {
    const r = await postJson(`${sim.url}/chat/completions`, '{"model": ');
    expect(r.status).toBe(400);
    expect(errorOf(r.json)).toMatchObject({ type: 'BadRequestError', code: 400 });
  });

  it('400 on missing messages / prompt / model, naming the field', async () => {
    const a = await postJson(`${sim.url}/chat/completions`, { model: MODEL_A });
    expect(a.status).toBe(400);
    expect(errorOf(a.json).param).toBe('messages');
    const b = await postJson(`${sim.url}/completions`, { model: MODEL_A });
    expect(errorOf(b.json).param).toBe('prompt');
    const c = await postJson(`${sim.url}/chat/completions`, { messages: [{ role: 'user', content: 'x' }] });
    expect(errorOf(c.json).param).toBe('model');
    const d = await postJson(`${sim.url}/chat/completions`, chat({ max_tokens: 0 }));
    expect(d.status).toBe(400);
    expect(errorOf(d.json).param).toBe('max_tokens');
  });

  it('404 on an unknown model', async () => {
    const r = await postJson(`${sim.url}/chat/completions`, chat({ model: 'gpt-4' }));
    expect(r.status).toBe(404);
    expect(errorOf(r.json)).toMatchObject({ type: 'NotFoundError', code: 404 });
  });

  it('400 when prompt plus max_tokens exceed the context window', async () => {
    const r = await postJson(`${sim.url}/chat/completions`, chat({ max_tokens: 262_140 }));
    expect(r.status).toBe(400);
    expect(errorOf(r.json).message).toMatch(/maximum context length is 262144/);
  });

  it('404 on an unknown path', async () => {
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });
});

describe('API key and queue limit', () => {
  it('401 without or with a wrong key, 200 with the right one', async () => {
    const s = await startSim({ fixed: { ttftMs: 1, itlMs: 1 }, apiKey: 'sekret', tokenizerWorkers: 1 });
    try {
      const none = await postJson(`${s.url}/chat/completions`, chat({ max_tokens: 1 }));
      expect(none.status).toBe(401);
      expect(errorOf(none.json).code).toBe(401);
      const wrong = await postJson(`${s.url}/chat/completions`, chat({ max_tokens: 1 }), {
        authorization: 'Bearer nope',
      });
      expect(wrong.status).toBe(401);
      const ok = await postJson(`${s.url}/chat/completions`, chat({ max_tokens: 1 }), {
        authorization: 'Bearer sekret',
      });
      expect(ok.status).toBe(200);
      // /v1/tokenize is a /v1 path like the others; the root /tokenize stays open, as vLLM's is.
      const tokenize = { model: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', prompt: 'hello world' };
      expect((await postJson(`${s.url}/tokenize`, tokenize)).status).toBe(401);
      expect((await postJson(`${s.url}/tokenize`, tokenize, { authorization: 'Bearer sekret' })).status).toBe(200);
      expect((await postJson(`${s.url.replace(/\/v1$/, '')}/tokenize`, tokenize)).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('429 with Retry-After when the waiting queue is full', async () => {
    // max_num_seqs 1: the second request waits, the third finds the queue (limit 1) full. A 5 s o_req
    // keeps both earlier requests waiting (requests in their o_req count as waiting) until the third
    // has arrived, however slow the machine: with the profile's 58 ms a loaded CI run once let the
    // third in, and it then streamed 5000 tokens into the test's timeout.
    const s = await startSim({
      profile: { scheduler: { maxNumSeqs: 1 }, hardware: { requestOverheadMs: 5000 } }, maxQueue: 1,
      tokenizerWorkers: 1,
    });
    try {
      const body = chat({ max_tokens: 5000, stream: true });
      const first = fetch(`${s.url}/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
      });
      const firstRes = await first;
      const second = fetch(`${s.url}/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
      });
      const secondRes = await second;
      const third = await postJson(`${s.url}/chat/completions`, body);
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toBe('1');
      expect(errorOf(third.json).code).toBe(429);
      await firstRes.body?.cancel();
      await secondRes.body?.cancel();
    } finally {
      await s.close();
    }
  });
});
