// The agentic script's messages, in the chat API's shape (lib/tool-shapes.ts writes them in the others'): the shared
// system prompt and tool catalog, user turns, the calls a model call asked for and their results, sub-agents' tasks.
// Runs in k6 and Node (pure).
//
// Every text is a run of one-token words of an exact length (lib/block-prompt.ts), keyed: equal keys give equal
// text, so every agent of a cell sends the same system prompt and catalog (a prefix cache holds them once), and
// everything else is its own.

import type { ApiMessage, ToolCall, ToolSpec } from './chat-template';
import type { BlockPrompter, BlockVocabulary } from './block-prompt';
import { fnv1a } from './random';
import { subAgentTool, type ToolCallPlan } from './agentic';
import type { AgentModel } from '../thresholds/agentic';

/** Text of exactly `tokens` one-token words for a key: the same key, the same text. */
export type AgentText = (key: string, tokens: number) => string;

/**
 * Word runs from a block prompter over the vocabulary's words alone (no chat template counted in them), salted by the
 * cell (lib/block-prompt.ts cellSalt) so that no cell finds another's text cached.
 */
export function agentText(
  makePrompter: (v: BlockVocabulary) => BlockPrompter, v: BlockVocabulary, salt: number,
): AgentText {
  const prompter = makePrompter({ words: v.words, fixedTokens: 0, leadingTokens: 0 });
  return (key, tokens) => {
    const k = fnv1a(key);
    return prompter({ keys: [k], blockTokens: tokens, inputTokens: tokens, salt, uniqueId: k });
  };
}

/** The name of catalog tool i: the last one starts a sub-agent. */
export function toolName(m: Pick<AgentModel, 'tools'>, i: number): string {
  return i === subAgentTool(m) && m.tools > 1 ? 'task' : `tool_${i}`;
}

/** The catalog every request carries: the model's tools, each with a description of its own fixed words. */
export function toolCatalog(m: Pick<AgentModel, 'tools' | 'toolDescriptionTokens'>, text: AgentText): ToolSpec[] {
  return Array.from({ length: m.tools }, (_, i) => ({
    type: 'function',
    function: {
      name: toolName(m, i),
      description: text(`tool:${i}`, m.toolDescriptionTokens),
      parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
    },
  }));
}

/** The shared system prompt, the first message of every conversation. */
export function systemMessage(m: Pick<AgentModel, 'systemPromptTokens'>, text: AgentText): ApiMessage {
  return { role: 'system', content: text('system', m.systemPromptTokens) };
}

/**
 * The id of call i of the step `id`: unique within the run, of the characters every API takes in one (Anthropic's
 * tool_use ids are letters, digits, _ and -), so the step's dots become dashes.
 */
export function toolCallId(id: string, i: number): string {
  return `call_${id.replace(/\./g, '-')}_${i}`;
}

/**
 * The assistant message of a call that asked for tools: the answer as the server returned it, then the calls. `id`
 * names the call uniquely within the run (agent, session, step), so tool results answer the right call.
 */
export function toolCallMessage(
  m: Pick<AgentModel, 'tools'>, answer: string, calls: readonly ToolCallPlan[], id: string,
): ApiMessage {
  const toolCalls: ToolCall[] = calls.map((c, i) => ({
    id: toolCallId(id, i),
    type: 'function',
    function: { name: toolName(m, c.tool), arguments: JSON.stringify({ input: `${id}.${i}` }) },
  }));
  return { role: 'assistant', content: answer, tool_calls: toolCalls };
}

/** A tool's result as the message answering call i of the step `id`. */
export function toolResultMessage(id: string, i: number, content: string): ApiMessage {
  return { role: 'tool', tool_call_id: toolCallId(id, i), content };
}
