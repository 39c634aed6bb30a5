// A tool-calling conversation in the shapes of the OpenAI Responses API and the Anthropic Messages API. Runs in k6
// and Node (pure).
//
// The agentic script keeps its history as chat messages (lib/chat-template.ts ApiMessage); a request on another API
// carries the same history in that API's own items, so the server reads the same conversation:
// - Responses: an assistant's calls are `function_call` items after its text, each result a `function_call_output`
//   item; the catalog's functions are flat ({type, name, description, parameters}).
// - Messages: the system text is the body's `system`; an assistant's calls are `tool_use` blocks after its text block,
//   consecutive results one user message of `tool_result` blocks (the API alternates user and assistant); the
//   catalog's tools carry their parameters as `input_schema`.

import type { ApiMessage, ToolSpec } from './chat-template';

/** One item of a Responses request's `input`. */
export type ResponsesInputItem =
  | { readonly role: 'system' | 'user'; readonly content: string }
  | {
    readonly type: 'message'; readonly role: 'assistant';
    readonly content: readonly { readonly type: 'output_text'; readonly text: string }[];
  }
  | {
    readonly type: 'function_call'; readonly call_id: string; readonly name: string; readonly arguments: string;
  }
  | { readonly type: 'function_call_output'; readonly call_id: string; readonly output: string };

/** A content block of a Messages request. */
export type MessagesBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: unknown }
  | { readonly type: 'tool_result'; readonly tool_use_id: string; readonly content: string };

export interface MessagesMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string | MessagesBlock[];
}

/** A Messages request's conversation: the system text apart (null without one), then the messages. */
export interface MessagesConversation {
  readonly system: string | null;
  readonly messages: MessagesMessage[];
}

/** A chat conversation as a Responses `input`; an assistant's empty text before its calls is left out. */
export function responsesInput(messages: readonly ApiMessage[]): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  for (const m of messages) {
    if (m.role === 'tool') {
      items.push({ type: 'function_call_output', call_id: m.tool_call_id, output: m.content });
    } else if (m.role === 'assistant' && 'tool_calls' in m) {
      if (m.content !== '') items.push(assistantItem(m.content));
      for (const c of m.tool_calls)
        items.push({ type: 'function_call', call_id: c.id, name: c.function.name, arguments: c.function.arguments });
    } else items.push(m.role === 'assistant' ? assistantItem(m.content) : { role: m.role, content: m.content });
  }
  return items;
}

/**
 * An assistant's text as the output message item a Responses history holds: typed, its text an output_text part.
 * llama.cpp's server refuses an untyped assistant message once function_call items are in the list.
 */
function assistantItem(text: string): ResponsesInputItem {
  return { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] };
}

/** The catalog as the Responses API lists functions. */
export function responsesTools(tools: readonly ToolSpec[]): object[] {
  return tools.map((t) => ({
    type: 'function', name: t.function.name, description: t.function.description, parameters: t.function.parameters,
  }));
}

/**
 * A chat conversation as a Messages request's: system messages joined into `system`, each call a tool_use block
 * (its input the parsed arguments), consecutive results one user message. An empty text block is left out (the API
 * refuses one).
 */
export function messagesConversation(messages: readonly ApiMessage[]): MessagesConversation {
  const system: string[] = [];
  const out: MessagesMessage[] = [];
  let results: MessagesBlock[] | null = null;
  for (const m of messages) {
    if (m.role === 'tool') {
      if (results === null) out.push({ role: 'user', content: (results = []) });
      results.push({ type: 'tool_result', tool_use_id: m.tool_call_id, content: m.content });
      continue;
    }
    results = null;
    if (m.role === 'system') system.push(m.content);
    else if (m.role === 'assistant' && 'tool_calls' in m) {
      const blocks: MessagesBlock[] = m.content === '' ? [] : [{ type: 'text', text: m.content }];
      for (const c of m.tool_calls)
        blocks.push({ type: 'tool_use', id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments) });
      out.push({ role: 'assistant', content: blocks });
    } else out.push({ role: m.role, content: m.content });
  }
  return { system: system.length > 0 ? system.join('\n\n') : null, messages: out };
}

/** The catalog as the Messages API lists tools. */
export function messagesTools(tools: readonly ToolSpec[]): object[] {
  return tools.map((t) => ({
    name: t.function.name, description: t.function.description, input_schema: t.function.parameters,
  }));
}
