// Unit tests of the response formats: vLLM and SGLang chunks, usage, non-streaming bodies. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import {
  completionBody,
  contentChunk,
  DONE_EVENT,
  finishChunk,
  makeUsage,
  roleChunk,
  usageChunk,
  type StreamIdentity,
} from '../../sim/sse';

const chat: StreamIdentity = { id: 'chatcmpl-1', created: 1700000000, model: 'm', endpoint: 'chat', flavour: 'vllm' };
const parse = (event: string) => {
  expect(event.startsWith('data: ')).toBe(true);
  expect(event.endsWith('\n\n')).toBe(true);
  return JSON.parse(event.slice(6)) as Record<string, unknown>;
};

describe('vLLM chat chunks', () => {
  it('matches vLLM field for field', () => {
    expect(parse(roleChunk(chat))).toEqual({
      id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model: 'm',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    });
    expect(parse(contentChunk(chat, ' the'))).toMatchObject({
      choices: [{ index: 0, delta: { content: ' the' }, logprobs: null, finish_reason: null }],
    });
    expect(parse(contentChunk(chat, ' end', 'length'))).toMatchObject({
      choices: [{ delta: { content: ' end' }, finish_reason: 'length', stop_reason: null }],
    });
    expect(parse(usageChunk(chat, makeUsage(10, 5)))).toMatchObject({
      choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
    expect(DONE_EVENT).toBe('data: [DONE]\n\n');
  });

  it('writes prompt_tokens_details on every response, 0 included, as vLLM 0.32 does', () => {
    expect(makeUsage(10, 5, 0)).toEqual({
      prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 0 },
    });
    expect(parse(usageChunk(chat, makeUsage(100, 5, 64)))).toMatchObject({
      usage: {
        prompt_tokens: 100, completion_tokens: 5, total_tokens: 105, prompt_tokens_details: { cached_tokens: 64 },
      },
    });
  });

  it('escapes text as JSON', () => {
    expect(parse(contentChunk(chat, 'a"b\n'))).toMatchObject({ choices: [{ delta: { content: 'a"b\n' } }] });
  });
});

describe('completions and SGLang', () => {
  it('text_completion chunks carry text', () => {
    const c = { ...chat, id: 'cmpl-1', endpoint: 'completion' as const };
    expect(parse(contentChunk(c, ' x'))).toMatchObject({
      object: 'text_completion', choices: [{ text: ' x', finish_reason: null }],
    });
    expect(JSON.parse(completionBody(c, { reasoning: '', content: ' x y' }, 'length', makeUsage(1, 2)))).toMatchObject({
      object: 'text_completion', choices: [{ text: ' x y', finish_reason: 'length' }], usage: { total_tokens: 3 },
    });
  });

  it('SGLang sends matched_stop and a separate finish chunk with an empty delta', () => {
    const s = { ...chat, flavour: 'sglang' as const };
    expect(parse(contentChunk(s, ' a b c'))).toMatchObject({
      choices: [{ delta: { content: ' a b c' }, matched_stop: null }],
    });
    expect(parse(finishChunk(s, 'stop'))).toMatchObject({
      choices: [{ delta: {}, finish_reason: 'stop', matched_stop: null }],
    });
  });

  it('the non-streaming chat body has the assistant message', () => {
    expect(JSON.parse(completionBody(chat, { reasoning: '', content: 'hi' }, 'stop', makeUsage(3, 1)))).toMatchObject({
      object: 'chat.completion', choices: [{ message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
    });
  });
});
