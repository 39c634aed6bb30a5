// A tool-calling conversation in the Responses and Messages shapes, and the request bodies that carry it. Runs in Node
// (vitest).
import { describe, expect, it } from 'vitest';
import type { ApiMessage, ToolSpec } from '../../lib/chat-template';
import { resolvePlan } from '../../lib/plan';
import { buildRequestBody } from '../../lib/request';
import { messagesConversation, messagesTools, responsesInput, responsesTools } from '../../lib/tool-shapes';

const call = (id: string, name: string) => ({
  id, type: 'function' as const, function: { name, arguments: '{"input":"a"}' },
});

/** A system prompt, a user turn, a step of two calls with empty text, their results, an answer, a step with text. */
const HISTORY: ApiMessage[] = [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'do it' },
  { role: 'assistant', content: '', tool_calls: [call('c1', 'grep'), call('c2', 'read')] },
  { role: 'tool', tool_call_id: 'c1', content: 'hits' },
  { role: 'tool', tool_call_id: 'c2', content: 'file' },
  { role: 'assistant', content: 'done' },
  { role: 'user', content: 'more' },
  { role: 'assistant', content: 'let me look', tool_calls: [call('c3', 'read')] },
  { role: 'tool', tool_call_id: 'c3', content: 'file 2' },
];

const TOOLS: ToolSpec[] = [
  { type: 'function', function: { name: 'grep', description: 'finds', parameters: { type: 'object' } } },
];

describe('responsesInput', () => {
  it('puts each call as a function_call item after its text, each result as a function_call_output', () => {
    expect(responsesInput(HISTORY)).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'do it' },
      { type: 'function_call', call_id: 'c1', name: 'grep', arguments: '{"input":"a"}' },
      { type: 'function_call', call_id: 'c2', name: 'read', arguments: '{"input":"a"}' },
      { type: 'function_call_output', call_id: 'c1', output: 'hits' },
      { type: 'function_call_output', call_id: 'c2', output: 'file' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] },
      { role: 'user', content: 'more' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'let me look' }] },
      { type: 'function_call', call_id: 'c3', name: 'read', arguments: '{"input":"a"}' },
      { type: 'function_call_output', call_id: 'c3', output: 'file 2' },
    ]);
    expect(responsesTools(TOOLS)).toEqual([
      { type: 'function', name: 'grep', description: 'finds', parameters: { type: 'object' } },
    ]);
  });
});

describe('messagesConversation', () => {
  it('hoists the system text, makes calls tool_use blocks and joins consecutive results in one user message', () => {
    expect(messagesConversation(HISTORY)).toEqual({
      system: 'sys',
      messages: [
        { role: 'user', content: 'do it' },
        { role: 'assistant', content: [
          { type: 'tool_use', id: 'c1', name: 'grep', input: { input: 'a' } },
          { type: 'tool_use', id: 'c2', name: 'read', input: { input: 'a' } },
        ] },
        { role: 'user', content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'hits' },
          { type: 'tool_result', tool_use_id: 'c2', content: 'file' },
        ] },
        { role: 'assistant', content: 'done' },
        { role: 'user', content: 'more' },
        { role: 'assistant', content: [
          { type: 'text', text: 'let me look' }, { type: 'tool_use', id: 'c3', name: 'read', input: { input: 'a' } },
        ] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c3', content: 'file 2' }] },
      ],
    });
    expect(messagesConversation([{ role: 'user', content: 'hi' }]).system).toBeNull();
    expect(messagesTools(TOOLS)).toEqual([{ name: 'grep', description: 'finds', input_schema: { type: 'object' } }]);
  });
});

describe('buildRequestBody with tools', () => {
  const target = resolvePlan({ target: { model: 'qwen' } }, 'sweep').target;

  it('carries the catalog with tool_choice none in each API\'s shape', () => {
    const request = { prompt: '', maxTokens: 8, messages: HISTORY, tools: TOOLS };
    expect(buildRequestBody(target, request)).toMatchObject({ messages: HISTORY, tools: TOOLS, tool_choice: 'none' });
    const responses = buildRequestBody({ ...target, api: 'responses' }, request);
    expect(responses).toMatchObject({
      input: responsesInput(HISTORY), tools: responsesTools(TOOLS), tool_choice: 'none', max_output_tokens: 8,
    });
    const messages = buildRequestBody({ ...target, api: 'messages' }, request);
    expect(messages).toMatchObject({
      system: 'sys', messages: messagesConversation(HISTORY).messages, tools: messagesTools(TOOLS),
      tool_choice: { type: 'none' }, max_tokens: 8,
    });
  });

  it('sends no tools, and on Messages no system, where the conversation has none', () => {
    const body = buildRequestBody({ ...target, api: 'messages' }, { prompt: 'hi', maxTokens: 8 });
    expect(body).toMatchObject({ messages: [{ role: 'user', content: 'hi' }] });
    expect(body).not.toHaveProperty('system');
    expect(body).not.toHaveProperty('tools');
    const responses = buildRequestBody({ ...target, api: 'responses' }, { prompt: 'hi', maxTokens: 8 });
    expect(responses).not.toHaveProperty('tools');
  });
});
