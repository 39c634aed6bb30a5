// The simulator reads the Responses and Messages APIs' tool calls, results and catalogs as it reads the chat API's:
// the suite's request bodies of one conversation in the three shapes give one prompt and one count of calls and
// results. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import type { ApiMessage, ToolSpec } from '../../lib/chat-template';
import { resolvePlan } from '../../lib/plan';
import { buildRequestBody } from '../../lib/request';
import { ApiError } from '../../sim/api-error';
import { parseGenerationRequest } from '../../sim/http';
import type { Endpoint } from '../../sim/sse';

const call = (id: string, name: string, input: string) => ({
  id, type: 'function' as const, function: { name, arguments: JSON.stringify({ input }) },
});

const HISTORY: ApiMessage[] = [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'do it' },
  { role: 'assistant', content: '', tool_calls: [call('c1', 'grep', 'x'), call('c2', 'read', 'y')] },
  { role: 'tool', tool_call_id: 'c1', content: 'hits' },
  { role: 'tool', tool_call_id: 'c2', content: 'file' },
  { role: 'assistant', content: 'done' },
  { role: 'user', content: 'more' },
  { role: 'assistant', content: 'let me look', tool_calls: [call('c3', 'read', 'z')] },
  { role: 'tool', tool_call_id: 'c3', content: 'file 2' },
];

const TOOLS: ToolSpec[] = ['grep', 'read'].map((name) => ({
  type: 'function', function: {
    name, description: `${name}s`, parameters: { type: 'object', properties: { input: { type: 'string' } } },
  },
}));

const target = resolvePlan({ target: { model: 'm' } }, 'sweep').target;
const ENDPOINT = {
  chat: 'chat', responses: 'responses', messages: 'messages',
} as const satisfies Record<string, Endpoint>;

function parsed(api: keyof typeof ENDPOINT, messages = HISTORY, tools: ToolSpec[] | undefined = TOOLS) {
  const body = buildRequestBody({ ...target, api }, { prompt: '', maxTokens: 8, messages, tools });
  return parseGenerationRequest(JSON.parse(JSON.stringify(body)) as Record<string, unknown>, ENDPOINT[api]);
}

describe('tool calls on the Responses and Messages APIs', () => {
  it('fold to the chat request\'s prompt, calls after their text, results as Qwen3\'s tool responses', () => {
    const chat = parsed('chat');
    expect(chat.messages!.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user',
      'assistant', 'user']);
    expect(chat.messages![0]!.content).toContain('"name":"grep"');
    for (const api of ['responses', 'messages'] as const) expect(parsed(api).messages, api).toEqual(chat.messages);
  });

  it('count the calls and results the conversation carried, for the ground truth', () => {
    for (const api of ['chat', 'responses', 'messages'] as const) {
      expect([parsed(api).toolCalls, parsed(api).toolResults], api).toEqual([3, 3]);
      const opening = parsed(api, HISTORY.slice(0, 2));
      expect([opening.toolCalls, opening.toolResults]).toEqual([0, 0]);
    }
  });

  it('leave a conversation without tools as it was: the system text first, no catalog', () => {
    const plain: ApiMessage[] = [{ role: 'system', content: 'sys' }, { role: 'user', content: 'hi' }];
    for (const api of ['responses', 'messages'] as const)
      expect(parsed(api, plain, undefined).messages).toEqual(parsed('chat', plain, undefined).messages);
  });

  it('refuse a malformed call or result with a 400 naming the field', () => {
    const bad = (body: Record<string, unknown>, e: Endpoint): ApiError => {
      try {
        parseGenerationRequest({ model: 'm', ...body }, e);
      } catch (err) {
        return err as ApiError;
      }
      throw new Error('expected an ApiError');
    };
    expect(bad({ input: [{ type: 'function_call', name: 'f' }] }, 'responses').message)
      .toBe('input[0] must be a function_call {"call_id","name","arguments"}.');
    expect(bad({ input: [{ type: 'function_call_output', call_id: 'c' }] }, 'responses').param).toBe('input');
    expect(bad({ input: [{ type: 'web_search_call' }] }, 'responses').message)
      .toBe('input[0].type "web_search_call" is not supported.');
    const useBlock = [{ role: 'assistant', content: [{ type: 'tool_use', id: 'c', name: 'f', input: 'x' }] }];
    expect(bad({ messages: useBlock }, 'messages').message)
      .toBe('messages[0].content[0] must be a tool_use {"id","name","input":{...}}.');
    expect(bad({ input: 'hi', tools: [{ type: 'web_search' }] }, 'responses').message)
      .toBe('tools[0] must be a function {"type":"function","name":...}: the simulator serves no built-in tools.');
    expect(bad({ messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'bash_20250124' }] }, 'messages').param)
      .toBe('tools');
    const resultBlock = [{ role: 'user', content: [{ type: 'tool_result', content: 'r' }] }];
    expect(bad({ messages: resultBlock }, 'messages').message)
      .toBe('messages[0].content[0].tool_use_id must be a string.');
  });
});
