// Tests for lib/block-prompt.ts with the real Qwen3 tokenizer: exact lengths, shared blocks as shared token prefixes,
// and prefix groups' prompts.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import {
  blockWordCounts, cellSalt, createBlockPrompter, groupPromptText, type BlockVocabulary,
} from '../../lib/block-prompt';
import { preparePrompts } from '../../tokenizer/prepare-prompts';
import { loadQwen3Tokenizer } from '../../tokenizer/qwen3';

async function qwenVocabulary(api: 'chat' | 'completions'): Promise<BlockVocabulary> {
  const set = await preparePrompts({
    model: 'Qwen/Qwen3-8B', api, contexts: [64], tokenizer: 'qwen3', blockVocabulary: true,
  });
  return set.blockVocabulary!;
}

const chatCount = (text: string): number => loadQwen3Tokenizer().countChat([{ role: 'user', content: text }]);

/** Leading token ids two prompts share (their chat renderings, as the server tokenizes them). */
function sharedTokens(a: string, b: string): number {
  const tok = loadQwen3Tokenizer();
  const render = (t: string): number[] => tok.encode(`<|im_start|>user\n${t}<|im_end|>\n<|im_start|>assistant\n`);
  const x = render(a);
  const y = render(b);
  let n = 0;
  while (n < x.length && x[n] === y[n]) n++;
  return n;
}

describe('block prompts', () => {
  it('finds the one-token words and ChatML fixed tokens with the Qwen3 tokenizer', async () => {
    const v = await qwenVocabulary('chat');
    expect(v.fixedTokens).toBe(8);
    expect(v.leadingTokens).toBe(3);
    expect(v.words.length).toBeGreaterThan(100);
    expect((await qwenVocabulary('completions')).fixedTokens).toBe(0);
  });

  it('builds prompts of exactly the row length, blocks or none', async () => {
    const v = await qwenVocabulary('chat');
    // 70,000 tokens: blocks of 40,000 cut from the pool in more than one piece.
    const cases = [[9, []], [11, [4]], [513, [1, 2]], [1000, [1, 2]], [4523, [6, 7, 8]], [2048, []]] as const;
    for (const [inputTokens, keys] of cases) {
      const text = createBlockPrompter(v)({ keys, blockTokens: 512, inputTokens, salt: 3, uniqueId: 77 });
      expect(chatCount(text)).toBe(inputTokens);
    }
    const long = createBlockPrompter(v)({
      keys: [1, 2], blockTokens: 40_000, inputTokens: 70_000, salt: 1, uniqueId: 1,
    });
    expect(chatCount(long)).toBe(70_000);
  });

  it('puts block boundaries on the trace positions: the first block holds the template start', () => {
    const v: BlockVocabulary = { words: ['a'], fixedTokens: 8, leadingTokens: 3 };
    expect(blockWordCounts({ blockTokens: 512, inputTokens: 1200 }, v)).toEqual([509, 512, 171]);
    expect(blockWordCounts({ blockTokens: 16, inputTokens: 4 }, v)).toEqual([1]);
  });

  it('gives rows with the same leading keys the same leading tokens, and other salts none', async () => {
    const v = await qwenVocabulary('chat');
    const prompter = createBlockPrompter(v);
    const row = (keys: number[], uniqueId: number, salt = 1): string =>
      prompter({ keys, blockTokens: 512, inputTokens: 2000, salt, uniqueId });
    // Two blocks (1024 tokens) in common, then different third blocks.
    const shared = sharedTokens(row([4, 5, 6, 7], 1), row([4, 5, 9, 10], 2));
    expect(shared).toBeGreaterThanOrEqual(1024);
    expect(shared).toBeLessThan(1030);
    // Rows without keys share nothing past the template, and neither does a row replayed with another salt.
    expect(sharedTokens(row([], 1), row([], 2))).toBeLessThan(8);
    expect(sharedTokens(row([4, 5], 1), row([4, 5], 1, 2))).toBeLessThan(8);
  });
});

describe('prefix-group prompts (plan prompts.prefixGroups)', () => {
  const groups = { groups: 3, prefixTokens: 700 };

  it('are exactly the cell\'s length, for the chat and the completions API', async () => {
    const chat = createBlockPrompter(await qwenVocabulary('chat'));
    const completions = createBlockPrompter(await qwenVocabulary('completions'));
    const textCount = (text: string): number => loadQwen3Tokenizer().countText(text);
    for (const [g, inputTokens] of [[groups, 1024], [{ groups: 8, prefixTokens: 16 }, 4096], [groups, 701]] as const) {
      for (const n of [0, 1, 5]) {
        expect(chatCount(groupPromptText(g, n, inputTokens, 9, chat)), `${inputTokens} chat`).toBe(inputTokens);
        expect(textCount(groupPromptText(g, n, inputTokens, 9, completions)), `${inputTokens} text`).toBe(inputTokens);
      }
    }
  });

  it('share the group\'s P leading tokens within a group (round robin), fewer than 8 across groups or ' +
    'salts', async () => {
    const prompter = createBlockPrompter(await qwenVocabulary('chat'));
    const request = (n: number, salt = 1): string => groupPromptText(groups, n, 2000, salt, prompter);
    // Requests 1, 4 and 7 are group 1's; 2 is group 2's.
    for (const other of [4, 7]) {
      const shared = sharedTokens(request(1), request(other));
      expect(shared, `requests 1 and ${other}`).toBeGreaterThanOrEqual(700);
      expect(shared).toBeLessThan(708);
    }
    expect(sharedTokens(request(1), request(2))).toBeLessThan(8);
    expect(sharedTokens(request(1), request(1, 2))).toBeLessThan(8);
  });

  it('are salted by the run and the cell: another nonce or cell id gives another salt', () => {
    const salts = [cellSalt(1, 'sweep_c1k_o1k_n1'), cellSalt(2, 'sweep_c1k_o1k_n1'), cellSalt(1, 'sweep_c1k_o1k_n2')];
    expect(new Set(salts).size).toBe(3);
    expect(cellSalt(1, 'sweep_c1k_o1k_n1')).toBe(salts[0]);
    for (const s of salts) expect(Number.isInteger(s) && s >= 0 && s < 2 ** 32).toBe(true);
  });
});
