// The agentic script's messages: exact word runs keyed and salted, the catalog, and calls answered by their results.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import {
  agentText, systemMessage, toolCallMessage, toolCatalog, toolName, toolResultMessage,
} from '../../lib/agentic-messages';
import { approximateVocabulary, createBlockPrompter } from '../../lib/block-prompt';
import { FILLER_WORDS } from '../../lib/prompt-text';

const vocabulary = approximateVocabulary(FILLER_WORDS, true);
const words = (t: string): number => t.split(' ').filter((w) => w !== '').length;

describe('agentText', () => {
  const text = agentText(createBlockPrompter, vocabulary, 11);

  it('gives exactly the tokens asked, one word each, without the chat template counted in', () => {
    for (const n of [1, 16, 300, 5000]) expect(words(text(`k${n}`, n))).toBe(n);
  });

  it('gives one key the same text, other keys and other salts other text', () => {
    expect(text('system', 64)).toBe(text('system', 64));
    expect(text('system', 64)).not.toBe(text('user', 64));
    expect(agentText(createBlockPrompter, vocabulary, 12)('system', 64)).not.toBe(text('system', 64));
  });
});

describe('the catalog and the calls', () => {
  const model = { tools: 3, toolDescriptionTokens: 8, systemPromptTokens: 32 };
  const text = agentText(createBlockPrompter, vocabulary, 1);

  it('names the tools, the last one the sub-agents\' task, each described by its own words', () => {
    const catalog = toolCatalog(model, text);
    expect(catalog.map((t) => t.function.name)).toEqual(['tool_0', 'tool_1', 'task']);
    expect(catalog.every((t) => words(t.function.description) === 8)).toBe(true);
    expect(toolName({ tools: 1 }, 0)).toBe('tool_0');
    expect(systemMessage(model, text)).toEqual({ role: 'system', content: text('system', 32) });
  });

  it('gives each call an id its result answers, and keeps the answer as the server sent it', () => {
    const calls = [{ tool: 1, latencyMs: 5, subAgent: null }, { tool: 2, latencyMs: 0, subAgent: { steps: [] } }];
    expect(toolCallMessage(model, 'the answer', calls, '0.1.0')).toEqual({
      role: 'assistant', content: 'the answer', tool_calls: [
        { id: 'call_0-1-0_0', type: 'function', function: { name: 'tool_1', arguments: '{"input":"0.1.0.0"}' } },
        { id: 'call_0-1-0_1', type: 'function', function: { name: 'task', arguments: '{"input":"0.1.0.1"}' } },
      ],
    });
    expect(toolResultMessage('0.1.0', 1, 'r')).toEqual({ role: 'tool', tool_call_id: 'call_0-1-0_1', content: 'r' });
  });
});
