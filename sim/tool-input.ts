// The Responses and Messages APIs' tool calls, results and catalogs, read into the chat API's shape, so that one
// reading (sim/http.ts) and one template (lib/chat-template.ts foldTools) serve all three: the same conversation
// costs the same prompt whichever API carried it. Runs in Node, pure.

import { ApiError } from './api-error';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A chat-shaped call, as an assistant message's tool_calls holds it. */
function chatCall(id: unknown, name: unknown, args: string): Obj {
  return { id, type: 'function', function: { name, arguments: args } };
}

/** Appends a call to the assistant message just before it, or opens an assistant message of no text. */
function addCall(out: Obj[], c: Obj): void {
  const last = out[out.length - 1];
  if (last?.role === 'assistant') last.tool_calls = [...(Array.isArray(last.tool_calls) ? last.tool_calls : []), c];
  else out.push({ role: 'assistant', content: '', tool_calls: [c] });
}

/**
 * A Responses `input` list as chat messages: messages (with or without type "message") as they are, each
 * function_call item a call of the assistant message before it, each function_call_output a tool message.
 */
export function responsesItemsAsChat(items: readonly unknown[]): unknown[] {
  const out: Obj[] = [];
  items.forEach((item, i) => {
    if (!isObj(item)) throw new ApiError(400, `input[${i}] must be an object.`, 'input');
    if (item.type === 'function_call') {
      if (typeof item.call_id !== 'string' || typeof item.name !== 'string' || typeof item.arguments !== 'string')
        throw new ApiError(400, `input[${i}] must be a function_call {"call_id","name","arguments"}.`, 'input');
      addCall(out, chatCall(item.call_id, item.name, item.arguments));
    } else if (item.type === 'function_call_output') {
      if (typeof item.call_id !== 'string' || typeof item.output !== 'string')
        throw new ApiError(400, `input[${i}] must be a function_call_output {"call_id","output"}.`, 'input');
      out.push({ role: 'tool', tool_call_id: item.call_id, content: item.output });
    } else if (item.type === undefined || item.type === 'message') {
      out.push({ role: item.role, content: item.content });
    } else throw new ApiError(400, `input[${i}].type "${String(item.type)}" is not supported.`, 'input');
  });
  return out;
}

/** A tool_result block's content: a string, or text blocks. */
function resultText(v: unknown, at: string): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((b) => isObj(b) && b.type === 'text' && typeof b.text === 'string'))
    return v.map((b) => (b as Obj).text as string).join('');
  throw new ApiError(400, `${at}.content must be a string or text blocks.`, 'messages');
}

/** One Messages message as chat messages: tool_result blocks as tool messages, tool_use blocks as calls. */
function messageAsChat(m: unknown, i: number, out: Obj[]): void {
  if (!isObj(m) || !Array.isArray(m.content)) {
    out.push(m as Obj);
    return;
  }
  const texts: Obj[] = [];
  const calls: Obj[] = [];
  m.content.forEach((b, j) => {
    const at = `messages[${i}].content[${j}]`;
    if (isObj(b) && b.type === 'tool_result') {
      if (typeof b.tool_use_id !== 'string')
        throw new ApiError(400, `${at}.tool_use_id must be a string.`, 'messages');
      out.push({ role: 'tool', tool_call_id: b.tool_use_id, content: resultText(b.content ?? '', at) });
    } else if (isObj(b) && b.type === 'tool_use') {
      if (typeof b.id !== 'string' || typeof b.name !== 'string' || !isObj(b.input))
        throw new ApiError(400, `${at} must be a tool_use {"id","name","input":{...}}.`, 'messages');
      calls.push(chatCall(b.id, b.name, JSON.stringify(b.input)));
    } else texts.push(b as Obj);
  });
  if (calls.length > 0) out.push({ role: m.role, content: texts, tool_calls: calls });
  else if (texts.length > 0) out.push({ role: m.role, content: texts });
}

/** A Messages request's messages as chat messages. */
export function messagesAsChat(messages: unknown): unknown {
  if (!Array.isArray(messages)) return messages;
  const out: Obj[] = [];
  messages.forEach((m, i) => messageAsChat(m, i, out));
  return out;
}

/**
 * A Responses (flat {type:"function", name, description, parameters}) or Messages ({name, description,
 * input_schema}) catalog as the chat API's; a tool of another kind (a built-in one) is a 400 in the API's own terms.
 */
export function toolsAsChat(v: unknown, api: 'responses' | 'messages'): unknown {
  if (!Array.isArray(v)) return v;
  return v.map((t, i) => {
    const fn = isObj(t) && typeof t.name === 'string' && (api === 'messages' || t.type === 'function');
    if (!fn) {
      const shape = api === 'responses' ? '{"type":"function","name":...}' : '{"name":...,"input_schema":...}';
      throw new ApiError(400, `tools[${i}] must be a function ${shape}: the simulator serves no built-in tools.`,
        'tools');
    }
    const parameters = api === 'responses' ? t.parameters : t.input_schema;
    return { type: 'function', function: { name: t.name, description: t.description, parameters } };
  });
}
