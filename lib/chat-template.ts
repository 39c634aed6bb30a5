// The ChatML prompt layout of the Qwen3 family, used to count the prompt tokens of a chat request exactly.
// Runs in k6 and Node.
//
// A chat request's prompt_tokens include the template around the user's text, so a prompt of an
// exact length must leave room for it. Both the prompt builder and the simulator count through here.

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
