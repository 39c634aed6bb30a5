// The ChatML prompt layout of the Qwen3 family, used to count the prompt tokens of a chat request exactly.
// Runs in k6 and Node.
//
// A chat request's prompt_tokens include the template around the user's text, so a prompt of an exact length must
// leave room for it. Both the prompt builder and the simulator count through here; tools fold into the same layout
// (foldTools).

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** Renders messages as Qwen's ChatML with the generation prompt, as vLLM does for Qwen3 models. */
export function renderChatMl(messages: readonly ChatMessage[]): string {
  let text = '';
  for (const m of messages) text += `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`;
  return `${text}<|im_start|>assistant\n`;
}

/**
 * What a follow-up user message adds to a conversation's prompt after the previous answer: the answer's end, the
 * message, and the generation prompt. renderChatMl([...history, answer, message]) is renderChatMl(history) + the
 * answer's text + followUpText(message), so a follow-up of exactly g tokens adds g to the prompt besides the answer.
 */
export function followUpText(message: string): string {
  return `<|im_end|>\n<|im_start|>user\n${message}<|im_end|>\n<|im_start|>assistant\n`;
}

/** A function the model may call, as the chat API's `tools` lists it. */
export interface ToolSpec {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description: string; readonly parameters: object };
}

/** A call the model made, as an assistant message of the chat API carries it. */
export interface ToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/** A chat API message with tool calls and results (the agentic script's history). */
export type ApiMessage =
  | ChatMessage
  | { readonly role: 'assistant'; readonly content: string; readonly tool_calls: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string };

const TOOLS_INTRO =
  '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
  'You are provided with function signatures within <tools></tools> XML tags:\n<tools>';
const TOOLS_OUTRO =
  '\n</tools>\n\nFor each function call, return a json object with function name and arguments within ' +
  '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n' +
  '</tool_call>';

function toolCallText(c: ToolCall): string {
  return `<tool_call>\n{"name": "${c.function.name}", "arguments": ${c.function.arguments}}\n</tool_call>`;
}

/**
 * Messages with tools folded into plain ChatML messages as Qwen3's chat template writes them: the catalog after the
 * system text, each call after its assistant's text, consecutive tool results as one user message of
 * <tool_response> blocks. renderChatMl of the result is the prompt a Qwen3 server builds (tools' JSON aside, which
 * Python writes with spaces after separators).
 */
export function foldTools(messages: readonly ApiMessage[], tools: readonly ToolSpec[] | null): ChatMessage[] {
  const out: ChatMessage[] = [];
  let rest = messages;
  if (tools && tools.length > 0) {
    const first = messages[0];
    const system = first?.role === 'system' ? `${first.content}\n\n` : '';
    if (first?.role === 'system') rest = messages.slice(1);
    out.push({ role: 'system', content: system + TOOLS_INTRO + tools.map((t) => '\n' + JSON.stringify(t)).join('') +
      TOOLS_OUTRO });
  }
  let toolBlock: string[] | null = null;
  for (const m of rest) {
    if (m.role === 'tool') {
      (toolBlock ??= []).push(`<tool_response>\n${m.content}\n</tool_response>`);
      continue;
    }
    if (toolBlock) out.push({ role: 'user', content: toolBlock.join('\n') });
    toolBlock = null;
    if (m.role === 'assistant' && 'tool_calls' in m) {
      const calls = m.tool_calls.map((c, i) => (i > 0 || m.content ? '\n' : '') + toolCallText(c)).join('');
      out.push({ role: 'assistant', content: m.content + calls });
    } else out.push({ role: m.role, content: m.content });
  }
  if (toolBlock) out.push({ role: 'user', content: toolBlock.join('\n') });
  return out;
}
