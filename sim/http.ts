// Parsing and validation of the simulator's HTTP requests, and OpenAI-style error bodies. Runs in Node, pure.

import { foldTools, type ApiMessage, type ChatMessage, type ToolCall, type ToolSpec } from '../lib/chat-template';
import type { Endpoint } from './sse';
import { ApiError } from './api-error';
import { messagesAsChat, responsesItemsAsChat, toolsAsChat } from './tool-input';

export interface GenerationRequest {
  readonly endpoint: Endpoint;
  readonly model: string;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  /** null: as many as the context window allows (vLLM's default). */
  readonly maxTokens: number | null;
  readonly minTokens: number;
  readonly ignoreEos: boolean;
  readonly stop: readonly string[];
  readonly seed: number | null;
  /** Chat, Responses and Messages requests (the system text first). */
  readonly messages: readonly ChatMessage[] | null;
  /** Completions requests. */
  readonly prompt: string | null;
  /** Tool calls and tool results in the conversation, in whichever API's shape they came (the ground truth's). */
  readonly toolCalls: number;
  readonly toolResults: number;
}

export interface TokenizeRequest {
  readonly model: string | null;
  readonly messages: readonly ChatMessage[] | null;
  readonly prompt: string | null;
  readonly addGenerationPrompt: boolean;
}

type Obj = Record<string, unknown>;

/** Parses a JSON body text; bad JSON and non-objects are 400s. */
export function parseJsonBody(text: string): Obj {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ApiError(400, `Invalid JSON body: ${(e as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ApiError(400, 'The request body must be a JSON object.');
  }
  return raw as Obj;
}

function optInt(o: Obj, key: string, min: number): number | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min)
    throw new ApiError(400, `${key} must be an integer >= ${min}, got ${JSON.stringify(v)}.`, key);
  return v;
}

function optBool(o: Obj, key: string, d: boolean): boolean {
  const v = o[key];
  if (v === undefined || v === null) return d;
  if (typeof v !== 'boolean') throw new ApiError(400, `${key} must be a boolean.`, key);
  return v;
}

/** Messages of any of the chat-like APIs; the chat API's tool results and calls kept for foldTools. */
function parseMessages(v: unknown): ApiMessage[] {
  if (!Array.isArray(v) || v.length === 0) throw new ApiError(400, 'messages must be a non-empty array.', 'messages');
  return v.map((m, i) => {
    if (typeof m !== 'object' || m === null) throw new ApiError(400, `messages[${i}] must be an object.`, 'messages');
    const { role, content } = m as Obj;
    const r = role === 'developer' ? 'system' : role;
    if (r !== 'system' && r !== 'user' && r !== 'assistant' && r !== 'tool')
      throw new ApiError(400, `messages[${i}].role must be one of system, user, assistant, tool.`, 'messages');
    let text: string;
    if (typeof content === 'string') text = content;
    else if (Array.isArray(content)) {
      text = content
        .map((p, j) => {
          const part = p as Obj;
          // text: chat and Messages; input_text and output_text: the Responses API's parts of input and history.
          const textPart = part.type === 'text' || part.type === 'input_text' || part.type === 'output_text';
          if (typeof p !== 'object' || p === null || !textPart || typeof part.text !== 'string') {
            throw new ApiError(
              400, `messages[${i}].content[${j}] must be a text part {"type":"text","text":...}.`, 'messages',
            );
          }
          return part.text;
        })
        .join('');
    } else if (content === null && r === 'assistant') text = '';
    else throw new ApiError(400, `messages[${i}].content must be a string or an array of text parts.`, 'messages');
    return withTools(m as Obj, r, text, i);
  });
}


/** A message's tool fields: a tool result's call id, an assistant's calls (absent: a plain message). */
function withTools(m: Obj, role: 'system' | 'user' | 'assistant' | 'tool', content: string, at: number): ApiMessage {
  if (role === 'tool') {
    if (typeof m.tool_call_id !== 'string')
      throw new ApiError(400, `messages[${at}].tool_call_id must be a string.`, 'messages');
    return { role, tool_call_id: m.tool_call_id, content };
  }
  if (role === 'assistant' && m.tool_calls !== undefined && m.tool_calls !== null)
    return { role, content, tool_calls: parseToolCalls(m.tool_calls, at) };
  return { role, content };
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A chat body's `tools`: null when absent; each {"type":"function","function":{"name",...}}. The simulator answers
 * with text, never with calls of its own; it reads tools, calls and results into the prompt as Qwen3's template does
 * (lib/chat-template.ts foldTools), so an agent's history costs what it would on vLLM.
 */
function parseTools(v: unknown): ToolSpec[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) throw new ApiError(400, 'tools must be an array.', 'tools');
  return v.map((t, i) => {
    const fn = isObj(t) ? t.function : undefined;
    if (!isObj(t) || t.type !== 'function' || !isObj(fn) || typeof fn.name !== 'string')
      throw new ApiError(400, `tools[${i}] must be {"type":"function","function":{"name":...}}.`, 'tools');
    const description = typeof fn.description === 'string' ? fn.description : '';
    const parameters = isObj(fn.parameters) ? fn.parameters : {};
    return { type: 'function', function: { name: fn.name, description, parameters } };
  });
}

/** An assistant message's `tool_calls`, each {"id","type":"function","function":{"name","arguments"}}. */
function parseToolCalls(v: unknown, at: number): ToolCall[] {
  const bad = () => new ApiError(
    400, `messages[${at}].tool_calls must be calls {"id","type":"function","function":{"name","arguments"}}.`,
    'messages',
  );
  if (!Array.isArray(v)) throw bad();
  return v.map((c) => {
    const fn = isObj(c) ? c.function : undefined;
    if (!isObj(c) || typeof c.id !== 'string' || !isObj(fn) || typeof fn.name !== 'string' ||
      typeof fn.arguments !== 'string')
      throw bad();
    return { id: c.id, type: 'function', function: { name: fn.name, arguments: fn.arguments } };
  });
}

function parsePrompt(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length === 1 && typeof v[0] === 'string') return v[0];
  if (v === undefined) throw new ApiError(400, 'prompt is required.', 'prompt');
  throw new ApiError(400, 'prompt must be a string (or an array holding one string).', 'prompt');
}

/** What a body says to generate from and how much, by its API's own field names. */
interface GenerationInput {
  readonly messages: ChatMessage[] | null;
  readonly prompt: string | null;
  readonly maxTokens: number | null;
  readonly includeUsage: boolean;
  readonly stopField: string;
  readonly toolCalls: number;
  readonly toolResults: number;
}

/**
 * A system text (Responses' instructions, Messages' system) as the conversation's first message, before the folding,
 * so that a catalog joins it as it joins a chat request's system message.
 */
function withSystem(o: Obj, field: string, messages: unknown): unknown {
  const v = o[field];
  if (v === undefined || v === null || !Array.isArray(messages)) return messages;
  return [{ role: 'system', content: v }, ...(messages as unknown[])];
}

/** A conversation folded into the template's messages, with its tool calls and results counted. */
function conversation(raw: unknown, tools: unknown): Pick<GenerationInput, 'messages' | 'toolCalls' | 'toolResults'> {
  const parsed = parseMessages(raw);
  let toolCalls = 0;
  let toolResults = 0;
  for (const m of parsed) {
    if (m.role === 'tool') toolResults++;
    else if ('tool_calls' in m) toolCalls += m.tool_calls.length;
  }
  return { messages: foldTools(parsed, parseTools(tools)), toolCalls, toolResults };
}

function generationInput(o: Obj, endpoint: Endpoint): GenerationInput {
  switch (endpoint) {
    case 'chat':
    case 'completion': {
      let includeUsage = false;
      if (o.stream_options !== undefined && o.stream_options !== null) {
        if (typeof o.stream_options !== 'object') {
          throw new ApiError(400, 'stream_options must be an object.', 'stream_options');
        }
        includeUsage = optBool(o.stream_options as Obj, 'include_usage', false);
      }
      const chat = endpoint === 'chat';
      return {
        ...(chat ? conversation(o.messages, o.tools) : { messages: null, toolCalls: 0, toolResults: 0 }),
        prompt: chat ? null : parsePrompt(o.prompt),
        maxTokens: optInt(o, 'max_tokens', 1) ?? (chat ? optInt(o, 'max_completion_tokens', 1) : null),
        includeUsage, stopField: 'stop',
      };
    }
    case 'responses': {
      // A string input is one user message (OpenAI's Responses API); a list is the conversation, its function_call
      // and function_call_output items read as the chat API's calls and results (sim/tool-input.ts).
      if (o.input === undefined) throw new ApiError(400, 'input is required.', 'input');
      const input = typeof o.input === 'string' ? [{ role: 'user', content: o.input }]
        : Array.isArray(o.input) ? responsesItemsAsChat(o.input) : o.input;
      return {
        ...conversation(withSystem(o, 'instructions', input), toolsAsChat(o.tools, 'responses')), prompt: null,
        maxTokens: optInt(o, 'max_output_tokens', 1), includeUsage: true, stopField: 'stop',
      };
    }
    case 'messages': {
      // tool_use and tool_result blocks read as the chat API's calls and results (sim/tool-input.ts).
      const messages = withSystem(o, 'system', messagesAsChat(o.messages));
      return {
        ...conversation(messages, toolsAsChat(o.tools, 'messages')), prompt: null,
        maxTokens: optInt(o, 'max_tokens', 1), includeUsage: true, stopField: 'stop_sequences',
      };
    }
  }
}

function parseStop(v: unknown, field: string): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v as string[];
  if (v !== undefined && v !== null) {
    throw new ApiError(400, `${field} must be a string or an array of strings.`, field);
  }
  return [];
}

/** Validates a generation body of any of the four APIs (chat/completions, completions, responses, messages). */
export function parseGenerationRequest(o: Obj, endpoint: Endpoint): GenerationRequest {
  if (typeof o.model !== 'string' || o.model === '') {
    throw new ApiError(400, 'model is required and must be a string.', 'model');
  }
  const stream = optBool(o, 'stream', false);
  const input = generationInput(o, endpoint);
  const maxTokens = input.maxTokens;
  const minTokens = optInt(o, 'min_tokens', 0) ?? 0;
  if (maxTokens !== null && minTokens > maxTokens)
    throw new ApiError(400, `min_tokens (${minTokens}) must be <= max_tokens (${maxTokens}).`, 'min_tokens');
  const seedRaw = o.seed;
  if (seedRaw !== undefined && seedRaw !== null && (typeof seedRaw !== 'number' || !Number.isInteger(seedRaw)))
    throw new ApiError(400, 'seed must be an integer.', 'seed');
  const n = optInt(o, 'n', 1);
  if (n !== null && n !== 1) throw new ApiError(400, 'n > 1 is not supported by the simulator.', 'n');
  return {
    endpoint,
    model: o.model,
    stream,
    includeUsage: input.includeUsage,
    maxTokens,
    minTokens,
    ignoreEos: optBool(o, 'ignore_eos', false),
    stop: parseStop(o[input.stopField], input.stopField),
    seed: typeof seedRaw === 'number' ? seedRaw : null,
    messages: input.messages,
    prompt: input.prompt,
    toolCalls: input.toolCalls,
    toolResults: input.toolResults,
  };
}

/** Validates a vLLM /tokenize body: {model?, prompt} or {model?, messages, add_generation_prompt?}. */
export function parseTokenizeRequest(o: Obj): TokenizeRequest {
  const model = typeof o.model === 'string' ? o.model : null;
  if (o.messages !== undefined) {
    return {
      model, messages: foldTools(parseMessages(o.messages), parseTools(o.tools)), prompt: null,
      addGenerationPrompt: optBool(o, 'add_generation_prompt', true),
    };
  }
  return { model, messages: null, prompt: parsePrompt(o.prompt), addGenerationPrompt: false };
}

/** The 400 vLLM answers when prompt + max_tokens exceed the context window. */
export function contextLengthError(maxModelLen: number, promptTokens: number, maxTokens: number): ApiError {
  return new ApiError(
    400,
    `This model's maximum context length is ${maxModelLen} tokens. ` +
      `However, you requested ${promptTokens + maxTokens} tokens ` +
      `(${promptTokens} in the messages, ${maxTokens} in the completion). ` +
      'Please reduce the length of the messages or completion.',
    'max_tokens',
  );
}
