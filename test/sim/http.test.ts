// Unit tests of request validation and error bodies. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../sim/api-error';
import {
  contextLengthError, parseGenerationRequest, parseJsonBody, parseTokenizeRequest,
} from '../../sim/http';

const err = (f: () => unknown): ApiError => {
  try {
    f();
  } catch (e) {
    return e as ApiError;
  }
  throw new Error('expected an ApiError');
};

describe('parseGenerationRequest', () => {
  it('reads the fields the suite sends', () => {
    const g = parseGenerationRequest(
      {
        model: 'm',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'a' }, { type: 'text', text: 'b' },
            ],
          },
        ],
        max_tokens: 5, min_tokens: 2, ignore_eos: true, stop: 'x', seed: 3, stream: true,
        stream_options: { include_usage: true },
      },
      'chat',
    );
    expect(g).toMatchObject({
      model: 'm', stream: true, includeUsage: true, maxTokens: 5, minTokens: 2, ignoreEos: true, stop: ['x'], seed: 3,
      messages: [{ role: 'user', content: 'ab' }],
    });
    expect(parseGenerationRequest({ model: 'm', prompt: ['p'] }, 'completion')).toMatchObject({
      prompt: 'p', maxTokens: null, stream: false,
    });
    expect(
      parseGenerationRequest(
        { model: 'm', messages: [{ role: 'user', content: 'x' }], max_completion_tokens: 9 }, 'chat',
      ).maxTokens,
    ).toBe(9);
  });

  it('rejects bad input with a 400 naming the field', () => {
    expect(err(() => parseJsonBody('[1]')).status).toBe(400);
    expect(err(() => parseJsonBody('{')).message).toMatch(/Invalid JSON/);
    expect(err(() => parseGenerationRequest({ messages: [] }, 'chat')).param).toBe('model');
    expect(err(() => parseGenerationRequest({ model: 'm', messages: [] }, 'chat')).param).toBe('messages');
    expect(
      err(() => parseGenerationRequest({ model: 'm', messages: [{ role: 'robot', content: 'x' }] }, 'chat')).param,
    ).toBe('messages');
    expect(err(() => parseGenerationRequest({ model: 'm', prompt: 'x', max_tokens: 1.5 }, 'completion')).param).toBe(
      'max_tokens',
    );
    expect(
      err(() => parseGenerationRequest({ model: 'm', prompt: 'x', max_tokens: 2, min_tokens: 3 }, 'completion')).param,
    ).toBe('min_tokens');
    expect(err(() => parseGenerationRequest({ model: 'm', prompt: 'x', stop: [1] }, 'completion')).param).toBe('stop');
    expect(err(() => parseGenerationRequest({ model: 'm', prompt: 'x', n: 2 }, 'completion')).param).toBe('n');
  });

  it('renders OpenAI-style error bodies', () => {
    expect(JSON.parse(new ApiError(404, 'nope', 'model').body())).toEqual({
      error: { message: 'nope', type: 'NotFoundError', param: 'model', code: 404 },
    });
    expect(contextLengthError(100, 90, 20).message).toBe(
      "This model's maximum context length is 100 tokens. However, you requested 110 tokens (90 in the messages, " +
      "20 in the completion). Please reduce the length of the messages or completion.",
    );
  });
});

describe('parseGenerationRequest: the chat API\'s tools', () => {
  it('folds the chat API\'s tools, tool calls and tool results into the messages it counts', () => {
    const call = { id: 'c1', type: 'function', function: { name: 'grep', arguments: '{}' } };
    const g = parseGenerationRequest({
      model: 'm', tools: [{ type: 'function', function: { name: 'grep' } }],
      messages: [
        { role: 'user', content: 'u' }, { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: 'c1', content: 'r' },
      ],
    }, 'chat');
    expect(g.messages!.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(g.messages![0]!.content).toContain('{"type":"function","function":{"name":"grep","description":"",');
    expect(g.messages!.slice(2).map((m) => m.content)).toEqual([
      '<tool_call>\n{"name": "grep", "arguments": {}}\n</tool_call>', '<tool_response>\nr\n</tool_response>',
    ]);
  });

  it('rejects bad tool fields with a 400 naming the field', () => {
    const user = [{ role: 'user', content: 'u' }];
    expect(err(() => parseGenerationRequest({ model: 'm', messages: user, tools: {} }, 'chat')).param).toBe('tools');
    expect(err(() => parseGenerationRequest({ model: 'm', messages: user, tools: [{ type: 'x' }] }, 'chat')).message)
      .toBe('tools[0] must be {"type":"function","function":{"name":...}}.');
    const orphan = [...user, { role: 'tool', content: 'r' }];
    expect(err(() => parseGenerationRequest({ model: 'm', messages: orphan }, 'chat')).message)
      .toBe('messages[1].tool_call_id must be a string.');
    const badCall = [...user, { role: 'assistant', content: 'a', tool_calls: [{ id: 'c' }] }];
    expect(err(() => parseGenerationRequest({ model: 'm', messages: badCall }, 'chat')).param).toBe('messages');
  });
});

describe('parseTokenizeRequest', () => {
  it('takes a prompt or messages', () => {
    expect(parseTokenizeRequest({ prompt: 'x' })).toMatchObject({ prompt: 'x', messages: null });
    expect(
      parseTokenizeRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], add_generation_prompt: false }),
    ).toMatchObject({ addGenerationPrompt: false });
  });
});
